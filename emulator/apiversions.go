package emulator

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// registeredType is an emulated resource type with the api-versions its
// resource provider registers for it and whose request and response shapes
// the emulator follows.
type registeredType struct {
	fullType string   // as the provider spells it: Microsoft.Storage/storageAccounts
	versions []string // oldest first
}

// registeredTypes is the one table of api-versions. Sources, per type in the
// comment above its entry: the version folders of azure-rest-api-specs
// (specification/<rp>/resource-manager/<ns>/stable and preview, a folder
// counting for a type when its swagger defines the type's paths), the Go SDK
// modules the product pins (hack/kindgen/pins.go) and the Python SDK that
// Debian's azure-cli ships (its commands pin older versions: managed identity
// 2022-01-31-preview, storage 2022-09-01, AKS 2022-11-01, resource groups
// 2021-04-01, role definitions 2018-01-01-preview), completed from Azure's
// public provider metadata as ARM itself prints it in its refusals (quoted in
// public GitHub issues, cited per type), which names versions the specs do
// not have and drops previews the provider has retired. All read 2026-12-01.
// Versions older than the shapes the emulator answers with are left out, so
// a client speaking one gets ARM's refusal rather than a body it would
// misread; each entry says where that cut is. Types not listed (served
// generically) accept any well-formed version.
var registeredTypes = []registeredType{
	// ARM's own list (InvalidApiVersionParameter text quoted in Azure/bicep#17091,
	// 2025-05, and Azure/bicep#15152, 2024-10), which has versions the specs lack
	// (2022-01-01, 2022-12-01, 2024-08-01, the previews), plus the folders
	// specification/resources/resource-manager/Microsoft.Resources/stable/
	// 2025-01-01, 2025-03-01, 2025-04-01 (armresources/v3 sends 2025-04-01).
	// ARM also lists "2014-04", which is not of the form ARM itself requires;
	// the emulator refuses it as malformed. Read 2026-12-01.
	{"Microsoft.Resources/resourceGroups", []string{
		"2013-03-01", "2014-01-01", "2014-02-26", "2014-04-01", "2014-04-01-preview", "2015-01-01", "2015-11-01",
		"2016-02-01", "2016-06-01", "2016-07-01", "2016-09-01", "2017-03-01", "2017-05-01", "2017-05-10", "2017-06-01",
		"2017-08-01", "2017-12-01", "2018-01-01", "2018-02-01", "2018-05-01", "2018-06-01", "2018-07-01", "2018-08-01",
		"2018-09-01", "2018-11-01", "2019-03-01", "2019-05-01", "2019-05-10", "2019-06-01", "2019-07-01", "2019-08-01",
		"2019-09-01", "2019-10-01", "2019-11-01", "2020-01-01", "2020-05-01", "2020-06-01", "2020-07-01", "2020-08-01",
		"2020-09-01", "2020-10-01", "2021-01-01", "2021-04-01", "2022-01-01", "2022-03-01-preview", "2022-05-01",
		"2022-06-01", "2022-09-01", "2022-11-01-preview", "2022-12-01", "2023-03-01-preview", "2023-07-01",
		"2023-07-01-preview", "2024-03-01", "2024-06-01-preview", "2024-07-01", "2024-08-01", "2024-10-01-preview",
		"2024-11-01", "2025-01-01", "2025-03-01", "2025-04-01"}},
	// specification/msi/resource-manager/Microsoft.ManagedIdentity/stable (2018-11-30,
	// 2023-01-31, 2024-11-30) and preview (2015-08-31-preview, 2021-09-30-preview,
	// 2022-01-31-preview, 2023-07-31-preview, 2025-01-31-preview). Read 2026-12-01.
	{"Microsoft.ManagedIdentity/userAssignedIdentities", []string{
		"2015-08-31-preview", "2018-11-30", "2021-09-30-preview", "2022-01-31-preview", "2023-01-31", "2023-07-31-preview",
		"2024-11-30", "2025-01-31-preview"}},
	// The same folders, from 2022-01-31-preview, the first whose ManagedIdentity.json
	// has federatedIdentityCredentials (2021-09-30-preview has none). Read 2026-12-01.
	{"Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials", []string{
		"2022-01-31-preview", "2023-01-31", "2023-07-31-preview", "2024-11-30", "2025-01-31-preview"}},
	// ARM's list (its refusal quoted in Azure/azure-sdk-for-java#28334, 2022-04)
	// plus specification/authorization/resource-manager/Microsoft.Authorization/
	// stable/2022-04-01. Versions before 2018-09-01-preview (no principalType)
	// are registered too but left out. Read 2026-12-01.
	{"Microsoft.Authorization/roleAssignments", []string{
		"2018-09-01-preview", "2018-12-01-preview", "2019-04-01-preview", "2020-03-01-preview", "2020-04-01-preview",
		"2020-08-01-preview", "2020-10-01-preview", "2021-04-01-preview", "2022-01-01-preview", "2022-04-01"}},
	// ARM's list (the same issue, 2022-04) plus the Microsoft.Authorization folders
	// stable/2022-04-01 and preview/2022-05-01-preview. The 2014 and 2015 previews
	// and 2015-06-01 are registered too but left out, as before. Read 2026-12-01.
	{"Microsoft.Authorization/roleDefinitions", []string{
		"2015-07-01", "2016-07-01", "2017-05-01", "2017-09-01", "2018-01-01-preview", "2018-07-01", "2022-04-01",
		"2022-05-01-preview"}},
	// specification/storage/resource-manager/Microsoft.Storage/stable (storage.json)
	// and armstorage/v3 (2025-06-01). Read 2026-12-01.
	{"Microsoft.Storage/storageAccounts", storageVersions},
	// The same folders' blob.json, which every one of them has. Read 2026-12-01.
	{"Microsoft.Storage/storageAccounts/blobServices/containers", storageVersions},
	// specification/redis/resource-manager/Microsoft.Cache/stable and preview
	// (redis.json; armredis/v3 sends 2024-11-01). Versions before 2020-06-01 are
	// registered too but left out, as before. Read 2026-12-01.
	{"Microsoft.Cache/redis", []string{
		"2020-06-01", "2020-12-01", "2021-06-01", "2022-05-01", "2022-06-01", "2023-04-01", "2023-05-01-preview",
		"2023-08-01", "2024-03-01", "2024-04-01-preview", "2024-11-01"}},
	{"Microsoft.DBforPostgreSQL/flexibleServers", postgresVersions},
	{"Microsoft.DBforPostgreSQL/flexibleServers/databases", postgresVersions},
	{"Microsoft.DBforPostgreSQL/flexibleServers/firewallRules", postgresVersions},
	{"Microsoft.ContainerService/managedClusters", aksVersions},
	{"Microsoft.ContainerService/managedClusters/agentPools", aksVersions},
}

// storageVersions: the stable folders from 2021-01-01 on. Older ones
// (2015-05-01-preview to 2020-08-01-preview) are registered too but left out,
// as before: the emulator answers in the newer account shape.
var storageVersions = []string{
	"2021-01-01", "2021-02-01", "2021-04-01", "2021-06-01", "2021-08-01", "2021-09-01",
	"2022-05-01", "2022-09-01", "2023-01-01", "2023-04-01", "2023-05-01", "2024-01-01", "2025-01-01", "2025-06-01"}

// postgresVersions: ARM's list for flexibleServers (its refusal quoted in
// Azure/bicep-types-az#2333, 2024-10, which also shows 2024-03-01-preview, a
// spec folder, is not registered) plus the folders
// specification/postgresql/resource-manager/Microsoft.DBforPostgreSQL/
// preview/2024-11-01-preview, 2025-01-01-preview, 2025-06-01-preview and
// stable/2025-08-01 (armpostgresqlflexibleservers/v5). The 2020 previews are
// registered too but left out: their server shape predates the GA one.
// Read 2026-12-01.
var postgresVersions = []string{
	"2021-06-01", "2021-06-01-preview", "2022-01-20-preview", "2022-03-08-preview", "2022-03-08-privatepreview",
	"2022-05-01-preview", "2022-05-01-privatepreview", "2022-11-01-preview", "2022-12-01", "2023-01-01-privatepreview",
	"2023-03-01-preview", "2023-06-01-preview", "2023-12-01-preview", "2024-03-01-privatepreview",
	"2024-05-01-privatepreview", "2024-08-01", "2024-11-01-preview", "2025-01-01-preview", "2025-06-01-preview",
	"2025-08-01"}

// aksVersions: ARM's list for managedClusters (its refusals quoted in
// Azure/azure-cli#28368 and #23985, 2024-02 to 2024-06: AKS retires previews,
// so 2021-11-01-preview and 2022-01-02-preview to 2022-06-02-preview are gone,
// and it registers 2022-08-01, which has no spec folder) plus
// specification/containerservice/resource-manager/Microsoft.ContainerService/
// aks/stable and preview (managedClusters.json, which defines agentPools in
// every one of these) up to stable/2025-10-01 (armcontainerservice/v8).
// Versions before 2021-02-01 are registered too but left out, as before.
// Read 2026-12-01.
var aksVersions = []string{
	"2021-02-01", "2021-03-01", "2021-05-01", "2021-07-01", "2021-08-01", "2021-09-01", "2021-10-01",
	"2022-01-01", "2022-02-01", "2022-03-01", "2022-04-01", "2022-06-01", "2022-07-01", "2022-07-02-preview",
	"2022-08-01", "2022-08-02-preview", "2022-08-03-preview", "2022-09-01", "2022-09-02-preview", "2022-10-02-preview",
	"2022-11-01", "2022-11-02-preview", "2023-01-01", "2023-01-02-preview", "2023-02-01", "2023-02-02-preview",
	"2023-03-01", "2023-03-02-preview", "2023-04-01", "2023-04-02-preview", "2023-05-01", "2023-05-02-preview",
	"2023-06-01", "2023-06-02-preview", "2023-07-01", "2023-07-02-preview", "2023-08-01", "2023-08-02-preview",
	"2023-09-01", "2023-09-02-preview", "2023-10-01", "2023-10-02-preview", "2023-11-01", "2023-11-02-preview",
	"2024-01-01", "2024-01-02-preview", "2024-02-01", "2024-02-02-preview", "2024-03-02-preview", "2024-04-02-preview",
	"2024-05-01", "2024-05-02-preview", "2024-06-02-preview", "2024-07-01", "2024-08-01", "2024-09-01", "2024-10-01",
	"2025-01-01", "2025-02-01", "2025-03-01", "2025-04-01", "2025-05-01", "2025-06-01", "2025-07-01", "2025-08-01",
	"2025-09-01", "2025-10-01"}

// apiVersions indexes registeredTypes by lower-cased full type. A list read from ARM and
// the specs (registeredTypes) wins over the generated one, which has only the versions
// the pinned SDK modules speak.
var apiVersions = func() map[string]registeredType {
	m := map[string]registeredType{}
	for _, t := range append(slices.Clone(generatedTypes), registeredTypes...) {
		m[strings.ToLower(t.fullType)] = t
	}
	return m
}()

var apiVersionSyntax = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-(preview|alpha|beta|privatepreview))?$`)

// checkAPIVersion answers as ARM does for a malformed api-version or one the
// type's provider does not register. fullType is the addressed (or listed)
// type; "" for requests that are not about a resource type.
func checkAPIVersion(fullType, version string) *apiError {
	if !apiVersionSyntax.MatchString(version) {
		return badRequest("InvalidApiVersionParameter",
			"The api-version '%s' is invalid. The supported versions are in the form YYYY-MM-DD or YYYY-MM-DD-preview.", version)
	}
	t, ok := apiVersions[strings.ToLower(fullType)]
	if !ok || slices.Contains(t.versions, version) {
		return nil
	}
	if strings.HasPrefix(strings.ToLower(fullType), "microsoft.resources/") {
		// ARM itself names its versions newest first.
		supported := slices.Clone(t.versions)
		slices.Reverse(supported)
		return badRequest("InvalidApiVersionParameter",
			"The api-version '%s' is invalid. The supported versions are '%s'.", version, strings.Join(supported, ","))
	}
	// A resource provider's refusal names them in its manifest's order.
	ns, typ, _ := strings.Cut(t.fullType, "/")
	return armErr(http.StatusBadRequest, "NoRegisteredProviderFound",
		"No registered resource provider found for API version '%s' and type '%s' of namespace '%s'. The supported api-versions are '%s'.",
		version, typ, ns, strings.Join(t.versions, ", "))
}

// providerNamespaces are the namespaces the emulator has types of, in the
// order /subscriptions/{s}/providers lists them.
func providerNamespaces() []string {
	var out []string
	for _, t := range registeredTypes {
		ns, _, _ := strings.Cut(t.fullType, "/")
		if !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// providerBody answers resource provider reads and registrations as ARM
// does: registered, with each emulated type of the namespace, its
// api-versions newest first (clients such as `az resource` pick the version
// they send from here) and its locations by display name. Every provider is
// registered, so azcore's registration policy never has to act.
func providerBody(sub, ns string) map[string]any {
	canonical := ns
	types := []any{}
	for _, t := range registeredTypes {
		tns, rel, _ := strings.Cut(t.fullType, "/")
		if !strings.EqualFold(tns, ns) {
			continue
		}
		canonical = tns
		versions := slices.Clone(t.versions)
		slices.Reverse(versions)
		rt := map[string]any{"resourceType": rel, "apiVersions": versions, "capabilities": "None"}
		if !strings.EqualFold(t.fullType, typeResourceGroup) && !strings.HasPrefix(strings.ToLower(t.fullType), "microsoft.authorization/") {
			rt["locations"] = providerLocations()
			rt["capabilities"] = "CrossResourceGroupResourceMove, CrossSubscriptionResourceMove"
		}
		for _, v := range versions {
			if !strings.Contains(v, "-preview") {
				rt["defaultApiVersion"] = v
				break
			}
		}
		types = append(types, rt)
	}
	return map[string]any{
		"id": "/subscriptions/" + sub + "/providers/" + canonical, "namespace": canonical,
		"registrationState": "Registered", "registrationPolicy": "RegistrationRequired", "resourceTypes": types,
	}
}

// providerLocations are the public cloud's regions by display name, as ARM
// spells them in provider metadata.
func providerLocations() []string {
	var out []string
	for _, l := range azurev1alpha1.Locations {
		if publicCloudLocation(l.Name) {
			out = append(out, l.DisplayName)
		}
	}
	return out
}
