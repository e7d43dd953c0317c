package sdk_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/hack/kindgen/config"
	"github.com/aztenant/aztenant/hack/kindgen/model"
	"github.com/aztenant/aztenant/hack/kindgen/sdk"
)

// field is what a test knows of one field, from the SDK's source (models.go comments,
// constants.go values). Only the facts that are set are checked.
type field struct {
	path      string
	readOnly  bool
	required  bool
	kind      model.TypeKind
	enum      []string // values that must be among the enum's
	reference bool
	secret    bool
	idOnly    bool
}

type op struct {
	method        string
	longRunning   bool
	finalStateVia string
	request       string // body type name; "" not checked
}

type kindCase struct {
	key        string
	armType    string
	scope      model.Scope
	owner      string
	parents    []string
	nameParam  string
	nameValues []string
	fixedName  string // the name pathParams fixes (api/kinds.yaml), as in blobServices/default
	path       string
	apiVersion string
	create     *op
	update     *op // nil: the client has no PATCH with a body
	updateTags bool
	delete     *op
	actions    map[string]string // action (URL segment) -> request or response type
	lists      map[string]string // method -> list scope
	fields     []field
}

// The facts below were read off the pinned SDK sources (hack/kindgen/go.mod): the
// urlPath strings and api-version of the clients, Begin… methods and their
// FinalStateVia, and the READ-ONLY/REQUIRED comments and PossibleXxxValues of the models.
var kindCases = []kindCase{
	{
		key: "network/VirtualNetwork", armType: "Microsoft.Network/virtualNetworks", scope: model.ScopeResourceGroup,
		owner: "Microsoft.Resources/resourceGroups", nameParam: "virtualNetworkName", apiVersion: "2025-05-01",
		path:       "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Network/virtualNetworks/{virtualNetworkName}",
		create:     &op{method: "BeginCreateOrUpdate", longRunning: true, finalStateVia: "azure-async-operation", request: "VirtualNetwork"},
		updateTags: true,
		delete:     &op{method: "BeginDelete", longRunning: true, finalStateVia: "location"},
		lists:      map[string]string{"NewListPager": "resourceGroup", "NewListAllPager": "subscription"},
		fields: []field{
			{path: "etag", readOnly: true, kind: model.KindString},
			{path: "properties.addressSpace.addressPrefixes", kind: model.KindSlice},
			{path: "properties.provisioningState", readOnly: true, enum: []string{"Succeeded", "Failed", "Updating"}},
			{path: "properties.ddosProtectionPlan", reference: true},
			{path: "properties.subnets", idOnly: true, reference: true},
			{path: "properties.flowTimeoutInMinutes", kind: model.KindInt32},
		},
	},
	{
		key: "network/VirtualNetworksSubnet", armType: "Microsoft.Network/virtualNetworks/subnets", scope: model.ScopeResourceGroup,
		owner: "Microsoft.Network/virtualNetworks", parents: []string{"Microsoft.Network/virtualNetworks"},
		nameParam: "subnetName", apiVersion: "2025-05-01",
		create:  &op{method: "BeginCreateOrUpdate", longRunning: true, finalStateVia: "azure-async-operation", request: "Subnet"},
		delete:  &op{method: "BeginDelete", longRunning: true, finalStateVia: "location"},
		actions: map[string]string{"PrepareNetworkPolicies": "PrepareNetworkPoliciesRequest", "UnprepareNetworkPolicies": "UnprepareNetworkPoliciesRequest"},
		lists:   map[string]string{"NewListPager": "parent"},
		fields: []field{
			{path: "properties.networkSecurityGroup", idOnly: true, reference: true},
			{path: "properties.natGateway", reference: true},
			{path: "properties.privateEndpointNetworkPolicies", enum: []string{"Disabled", "Enabled", "NetworkSecurityGroupEnabled", "RouteTableEnabled"}},
			{path: "properties.delegations.properties.serviceName", kind: model.KindString},
			{path: "properties.ipConfigurations", readOnly: true},
		},
	},
	{
		key: "keyvault/Vault", armType: "Microsoft.KeyVault/vaults", scope: model.ScopeResourceGroup,
		owner: "Microsoft.Resources/resourceGroups", nameParam: "vaultName", apiVersion: "2024-11-01",
		create: &op{method: "BeginCreateOrUpdate", longRunning: true, request: "VaultCreateOrUpdateParameters"},
		update: &op{method: "Update", request: "VaultPatchParameters"},
		delete: &op{method: "Delete"},
		lists:  map[string]string{"NewListByResourceGroupPager": "resourceGroup", "NewListBySubscriptionPager": "subscription"},
		fields: []field{
			{path: "properties.tenantId", required: true, kind: model.KindString},
			{path: "properties.sku.name", required: true, enum: []string{"premium", "standard"}},
			{path: "properties.networkAcls.virtualNetworkRules.id", required: true, reference: true},
			{path: "properties.vaultUri", kind: model.KindString},
		},
	},
	{
		key: "servicebus/NamespacesQueue", armType: "Microsoft.ServiceBus/namespaces/queues", scope: model.ScopeResourceGroup,
		owner: "Microsoft.ServiceBus/namespaces", parents: []string{"Microsoft.ServiceBus/namespaces"},
		nameParam: "queueName", apiVersion: "2021-11-01",
		create: &op{method: "CreateOrUpdate", request: "SBQueue"},
		delete: &op{method: "Delete"},
		lists:  map[string]string{"NewListByNamespacePager": "parent"},
		fields: []field{
			{path: "properties.messageCount", readOnly: true, kind: model.KindInt64},
			{path: "properties.status", enum: []string{"Active", "Disabled"}},
			{path: "properties.lockDuration", kind: model.KindString},
		},
	},
	{
		key: "servicebus/NamespacesTopicsSubscriptionsRule", armType: "Microsoft.ServiceBus/namespaces/topics/subscriptions/rules",
		scope: model.ScopeResourceGroup, owner: "Microsoft.ServiceBus/namespaces/topics/subscriptions",
		parents:   []string{"Microsoft.ServiceBus/namespaces", "Microsoft.ServiceBus/namespaces/topics", "Microsoft.ServiceBus/namespaces/topics/subscriptions"},
		nameParam: "ruleName", apiVersion: "2021-11-01",
		create: &op{method: "CreateOrUpdate", request: "Rule"},
		delete: &op{method: "Delete"},
		lists:  map[string]string{"NewListBySubscriptionsPager": "parent"},
		fields: []field{{path: "properties.filterType", enum: []string{"CorrelationFilter", "SqlFilter"}}},
	},
	{
		key: "storage/StorageAccount", armType: "Microsoft.Storage/storageAccounts", scope: model.ScopeResourceGroup,
		owner: "Microsoft.Resources/resourceGroups", nameParam: "accountName", apiVersion: "2025-06-01",
		create:  &op{method: "BeginCreate", longRunning: true, request: "AccountCreateParameters"},
		update:  &op{method: "Update", request: "AccountUpdateParameters"},
		delete:  &op{method: "Delete"},
		actions: map[string]string{"listKeys": "AccountListKeysResult", "regenerateKey": "AccountRegenerateKeyParameters"},
		lists:   map[string]string{"NewListByResourceGroupPager": "resourceGroup", "NewListPager": "subscription"},
		fields: []field{
			// The GET model marks kind READ-ONLY; the create body requires it.
			{path: "kind", readOnly: true, enum: []string{"Storage", "StorageV2", "BlobStorage", "BlockBlobStorage", "FileStorage"}},
			{path: "sku.name", required: true, enum: []string{"Standard_LRS", "Premium_ZRS"}},
			{path: "properties.primaryEndpoints", readOnly: true},
			{path: "properties.minimumTlsVersion", enum: []string{"TLS1_2"}},
		},
	},
	{
		key: "authorization/RoleAssignment", armType: "Microsoft.Authorization/roleAssignments", scope: model.ScopeExtension,
		owner: "", nameParam: "roleAssignmentName", apiVersion: "2022-04-01",
		path:   "/{scope}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}",
		create: &op{method: "Create", request: "RoleAssignmentCreateParameters"},
		delete: &op{method: "Delete"},
		lists: map[string]string{"NewListForScopePager": "extension", "NewListForSubscriptionPager": "subscription",
			"NewListForResourceGroupPager": "resourceGroup", "NewListForResourcePager": "resource"},
		fields: []field{
			// The SDK requires it; the config lets principalIdFromConfig stand for it.
			{path: "properties.principalId", kind: model.KindString},
			{path: "properties.roleDefinitionId", required: true, reference: true},
			{path: "properties.principalType", enum: []string{"ServicePrincipal", "User", "Group"}},
		},
	},
	{
		// An extension of one type of resource, its provider and type fixed by pathParams:
		// the same shape as /{scope}.
		key: "kubernetesconfiguration/Extension", armType: "Microsoft.KubernetesConfiguration/extensions", scope: model.ScopeExtension,
		owner: "", nameParam: "extensionName", apiVersion: "2023-05-01",
		path:   "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters/{clusterName}/providers/Microsoft.KubernetesConfiguration/extensions/{extensionName}",
		create: &op{method: "BeginCreate", longRunning: true, finalStateVia: "azure-async-operation", request: "Extension"},
		update: &op{method: "BeginUpdate", longRunning: true, finalStateVia: "azure-async-operation", request: "PatchExtension"},
		delete: &op{method: "BeginDelete", longRunning: true, finalStateVia: "azure-async-operation"},
	},
	{
		key: "network/PrivateDnsZonesARecord", armType: "Microsoft.Network/privateDnsZones/A", scope: model.ScopeResourceGroup,
		owner: "Microsoft.Network/privateDnsZones", parents: []string{"Microsoft.Network/privateDnsZones"},
		nameParam: "relativeRecordSetName", apiVersion: "2024-06-01",
		path:   "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Network/privateDnsZones/{privateZoneName}/A/{relativeRecordSetName}",
		create: &op{method: "CreateOrUpdate", request: "RecordSet"},
		update: &op{method: "Update", request: "RecordSet"},
		delete: &op{method: "Delete"},
		lists:  map[string]string{"NewListByTypePager": "parent"},
		fields: []field{
			{path: "properties.aRecords.ipv4Address", kind: model.KindString},
			{path: "properties.ttl", kind: model.KindInt64},
			{path: "properties.fqdn", readOnly: true},
			{path: "properties.isAutoRegistered", readOnly: true, kind: model.KindBool},
		},
	},
	{
		key: "storage/StorageAccountsBlobServicesContainer", armType: "Microsoft.Storage/storageAccounts/blobServices/containers",
		scope: model.ScopeResourceGroup, owner: "Microsoft.Storage/storageAccounts",
		parents:   []string{"Microsoft.Storage/storageAccounts", "Microsoft.Storage/storageAccounts/blobServices"},
		nameParam: "containerName", apiVersion: "2025-06-01",
		create:  &op{method: "Create", request: "BlobContainer"},
		update:  &op{method: "Update", request: "BlobContainer"},
		delete:  &op{method: "Delete"},
		actions: map[string]string{"setLegalHold": "LegalHold"},
		lists:   map[string]string{"NewListPager": "parent"},
		fields:  []field{{path: "properties.publicAccess", enum: []string{"Blob", "Container", "None"}}},
	},
	{
		key: "storage/StorageAccountsManagementPolicy", armType: "Microsoft.Storage/storageAccounts/managementPolicies",
		scope: model.ScopeResourceGroup, owner: "Microsoft.Storage/storageAccounts", parents: []string{"Microsoft.Storage/storageAccounts"},
		fixedName: "default", apiVersion: "2025-06-01", // the config fixes managementPolicyName, whose only value is default
		create: &op{method: "CreateOrUpdate", request: "ManagementPolicy"},
		delete: &op{method: "Delete"},
	},
	{
		key: "resources/ResourceGroup", armType: "Microsoft.Resources/resourceGroups", scope: model.ScopeSubscription,
		owner: "Microsoft.Resources/subscriptions", nameParam: "resourceGroupName", apiVersion: "2025-04-01",
		create: &op{method: "CreateOrUpdate", request: "ResourceGroup"},
		update: &op{method: "Update", request: "ResourceGroupPatchable"},
		delete: &op{method: "BeginDelete", longRunning: true},
		lists:  map[string]string{"NewListPager": "subscription"},
		fields: []field{{path: "location", required: true}, {path: "properties.provisioningState", readOnly: true}},
	},
	{
		key: "dbforpostgresql/FlexibleServer", armType: "Microsoft.DBforPostgreSQL/flexibleServers", scope: model.ScopeResourceGroup,
		owner: "Microsoft.Resources/resourceGroups", nameParam: "serverName",
		create:  &op{method: "BeginCreateOrUpdate", longRunning: true, finalStateVia: "azure-async-operation", request: "Server"},
		update:  &op{method: "BeginUpdate", longRunning: true, finalStateVia: "azure-async-operation", request: "ServerForPatch"},
		delete:  &op{method: "BeginDelete", longRunning: true, finalStateVia: "location"},
		actions: map[string]string{"restart": "RestartParameter"},
		fields: []field{
			{path: "properties.administratorLoginPassword", secret: true, kind: model.KindString},
			{path: "properties.administratorLogin", kind: model.KindString},
		},
	},
}

func TestKindFacts(t *testing.T) {
	for _, c := range kindCases {
		t.Run(c.key, func(t *testing.T) {
			k := read(t, c.key)
			check := func(what string, got, want any) {
				t.Helper()
				if !equal(got, want) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("armType", k.ARMType, c.armType)
			check("scope", k.Scope, c.scope)
			check("owner", k.Owner, c.owner)
			check("nameParam", k.NameParam, c.nameParam)
			check("nameValues", k.NameValues, c.nameValues)
			check("fixedName", k.FixedName, c.fixedName)
			var parents []string
			for _, p := range k.Parents {
				parents = append(parents, p.Type)
			}
			check("parents", parents, c.parents)
			if c.path != "" {
				check("path", k.Path, c.path)
			}
			if c.apiVersion != "" {
				check("apiVersion", k.APIVersion, c.apiVersion)
			}
			checkOp(t, "create", k.Create, c.create)
			checkOp(t, "update", k.Update, c.update)
			checkOp(t, "delete", k.Delete, c.delete)
			check("updateTags", k.UpdateTags != nil, c.updateTags)
			for name, body := range c.actions {
				a, ok := k.Action(name)
				if !ok {
					t.Errorf("no action %s", name)
					continue
				}
				if a.HTTPMethod != "POST" || (refName(a.Request) != body && refName(a.Response) != body) {
					t.Errorf("action %s: %s, request %s, response %s; want POST with %s", name, a.HTTPMethod, refName(a.Request), refName(a.Response), body)
				}
			}
			lists := map[string]string{}
			for _, l := range k.Lists {
				lists[l.Method] = l.ListScope
			}
			for m, scope := range c.lists {
				if lists[m] != scope {
					t.Errorf("list %s: scope %q, want %q (lists %v)", m, lists[m], scope, lists)
				}
			}
			for _, want := range c.fields {
				checkField(t, k, want)
			}
			if len(k.Unresolved) > 0 {
				t.Errorf("unresolved: %v", k.Unresolved)
			}
		})
	}
}

func checkOp(t *testing.T, verb string, got *model.Operation, want *op) {
	t.Helper()
	switch {
	case want == nil && got != nil:
		t.Errorf("%s: got %s %s, want none", verb, got.HTTPMethod, got.Method)
	case want != nil && got == nil:
		t.Errorf("%s: none, want %s", verb, want.method)
	case want != nil:
		if got.Method != want.method || got.LongRunning != want.longRunning || got.FinalStateVia != want.finalStateVia {
			t.Errorf("%s: %s long-running=%v final=%q, want %s long-running=%v final=%q", verb,
				got.Method, got.LongRunning, got.FinalStateVia, want.method, want.longRunning, want.finalStateVia)
		}
		if want.request != "" && refName(got.Request) != want.request {
			t.Errorf("%s: request %s, want %s", verb, refName(got.Request), want.request)
		}
	}
}

func checkField(t *testing.T, k *model.Kind, want field) {
	t.Helper()
	f, ok := k.Field(want.path)
	if !ok {
		t.Errorf("field %s: not found", want.path)
		return
	}
	if f.ReadOnly != want.readOnly || f.Required != want.required {
		t.Errorf("field %s: readOnly=%v required=%v, want %v %v", want.path, f.ReadOnly, f.Required, want.readOnly, want.required)
	}
	if want.kind != "" && f.Type.Kind != want.kind {
		t.Errorf("field %s: kind %s, want %s", want.path, f.Type.Kind, want.kind)
	}
	if (f.Reference != nil) != want.reference {
		t.Errorf("field %s: reference %+v, want %v", want.path, f.Reference, want.reference)
	}
	if (f.Secret != nil) != want.secret {
		t.Errorf("field %s: secret %+v, want %v", want.path, f.Secret, want.secret)
	}
	if (f.IDOnly != nil) != want.idOnly {
		t.Errorf("field %s: idOnly %+v, want %v", want.path, f.IDOnly, want.idOnly)
	}
	if len(want.enum) > 0 {
		typ := k.Types[f.Type.Name]
		if f.Type.Kind != model.KindNamed || typ == nil || typ.Enum == nil {
			t.Errorf("field %s: type %+v is not an enum", want.path, f.Type)
			return
		}
		var values []string
		for _, v := range typ.Enum.Values {
			values = append(values, v.Value)
		}
		for _, v := range want.enum {
			if !slices.Contains(values, v) {
				t.Errorf("field %s: enum %s has no %q (has %v)", want.path, typ.Name, v, values)
			}
		}
	}
}

func refName(r *model.TypeRef) string {
	if r == nil {
		return ""
	}
	return r.Name
}

func equal(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestCreateBody: a storage account's kind is READ-ONLY in the GET model but REQUIRED in
// AccountCreateParameters; the model keeps both, so a spec is built from the create body.
func TestCreateBody(t *testing.T) {
	k := read(t, "storage/StorageAccount")
	f, ok := k.FieldOf(refName(k.Create.Request), "kind")
	if !ok || f.ReadOnly || !f.Required {
		t.Errorf("AccountCreateParameters.kind = %+v, want writable and required", f)
	}
	key, ok := k.FieldOf("AccountKey", "value")
	if !ok || !key.ReadOnly || key.Secret == nil {
		t.Errorf("AccountKey.value (listKeys) = %+v, want a read-only secret", key)
	}
}

// TestUnion: Cosmos DB's backupPolicy is polymorphic; the SDK's unmarshal helper switches
// on "type" (BackupPolicyType: Continuous, Periodic).
func TestUnion(t *testing.T) {
	k := read(t, "documentdb/DatabaseAccount")
	f, ok := k.Field("properties.backupPolicy")
	if !ok {
		t.Fatal("no properties.backupPolicy")
	}
	u := k.Types[f.Type.Name]
	if u == nil || u.Shape != model.ShapeUnion {
		t.Fatalf("backupPolicy type %+v is not a union", f.Type)
	}
	want := []model.Variant{{Value: "Continuous", Type: "ContinuousModeBackupPolicy"}, {Value: "Periodic", Type: "PeriodicModeBackupPolicy"}}
	if u.Union.Discriminator != "type" || u.Union.Base != "BackupPolicy" || !equal(u.Union.Variants, want) {
		t.Errorf("union = %+v, want discriminator type, base BackupPolicy, variants %v", u.Union, want)
	}
	for _, v := range want {
		if k.Types[v.Type] == nil {
			t.Errorf("variant %s not in the type table", v.Type)
		}
	}
}

// TestEveryKind reads every configured kind: none may have unresolved types, every
// operation has a path and api-version, and the cycles left are reported with a path
// that really loops.
func TestEveryKind(t *testing.T) {
	file, pkgs := load(t)
	if len(file.Kinds) < 71 {
		t.Errorf("%d kinds configured, want at least 71 (60 new and the 11 of today)", len(file.Kinds))
	}
	// ASO's names follow its rule (VirtualNetworksSubnet) except where ASO renamed a
	// kind; a config name outside both is a typo.
	renamed := regexp.MustCompile(`^((Private)?DnsZones[A-Z]+Record|FederatedIdentityCredential|NamespacesEventhubsConsumerGroup|SqlDatabase|SqlDatabaseContainer|` +
		`SqlDatabaseContainer(StoredProcedure|Trigger|UserDefinedFunction)|SqlRole(Assignment|Definition)|MongodbDatabase(Collection)?|Mongodb(Role|User)Definition|ServersDnsAlias|` +
		`CassandraKeyspace(Table)?|GremlinDatabase(Graph)?|DnsForwardingRuleSets(ForwardingRule|VirtualNetworkLink)|WebApplicationFirewallPolicy|` +
		`ServerFarm|AutoscaleSetting|` +
		// API Management's children, which ASO names without their service's prefix.
		`Api|ApiVersionSet|Backend|NamedValue|Product|Subscription|PolicyFragment|Logger|Tag|Group|User|Cache|IdentityProvider|AuthorizationServer|` +
		`ApiOperation|ApiPolicy|Policy|ProductPolicy|Certificate|OpenIdConnectProvider|Diagnostic|ApiRelease|ApiSchema|ApiDiagnostic|` +
		`GlobalSchema)$`)
	// Or as ASO v2.21 names it (the table internal/asoconvert checks the kinds against).
	asoKinds := map[string]bool{}
	table, err := os.ReadFile("../../../internal/asoconvert/testdata/aso-kinds.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(table), "\n") {
		if f := strings.Split(line, "\t"); len(f) > 2 && !strings.HasPrefix(line, "#") {
			asoKinds[f[0]+"/"+f[1]] = true
		}
	}
	for _, ck := range file.Kinds {
		k, err := sdk.Read(pkgs[file.Modules[ck.Module]], file, ck)
		if err != nil {
			t.Errorf("%s: %v", ck.Key(), err)
			continue
		}
		if k.Kind != k.DerivedKind && !renamed.MatchString(k.Kind) && !asoKinds[ck.Group+"/"+k.Kind] {
			t.Errorf("%s: ASO's rule names %s %s, and ASO v2.21 has no kind %s in group %s", ck.Key(), k.ARMType, k.DerivedKind, k.Kind, ck.Group)
		}
		if len(k.Unresolved) > 0 {
			t.Errorf("%s: unresolved %v", ck.Key(), k.Unresolved)
		}
		if k.Get == nil || k.Create == nil {
			t.Errorf("%s: get %v create %v: a kind needs both", ck.Key(), k.Get != nil, k.Create != nil)
		}
		for _, o := range k.Operations() {
			if o.Path == "" || o.APIVersion == "" || o.HTTPMethod == "" {
				t.Errorf("%s: operation %s without path, api-version or method", ck.Key(), o.Method)
			}
		}
		if k.Types[k.Resource] == nil {
			t.Errorf("%s: resource type %s not in the table", ck.Key(), k.Resource)
		}
		for _, c := range k.Cycles {
			if len(c.Path) == 0 || !strings.HasPrefix(c.Path[0], c.To+".") || c.Path[len(c.Path)-1] != c.Edge {
				t.Errorf("%s: cycle %+v does not loop from %s back to it", ck.Key(), c, c.To)
			}
		}
		if len(k.Cycles) > 0 {
			t.Logf("%s: %d cycles left for the emitters, such as %s", ck.Key(), len(k.Cycles), strings.Join(k.Cycles[0].Path, " -> "))
		}
	}
}

// TestCycleOverride: a NIC's ipConfigurations name application gateway backend pools,
// whose backendIPConfigurations name NIC ipConfigurations again. The config breaks the
// loop with idOnly; without it the reader reports the cycle.
func TestCycleOverride(t *testing.T) {
	file, pkgs := load(t)
	nic := file.Find("network", "NetworkInterface")[0]
	with, err := sdk.Read(pkgs[file.Modules[nic.Module]], file, nic)
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Cycles) != 0 {
		t.Errorf("with the config's override: cycles %+v", with.Cycles)
	}
	f, _ := with.Field("properties.ipConfigurations.properties.applicationGatewayBackendAddressPools")
	if f == nil || f.IDOnly == nil || f.IDOnly.Source != "config" {
		t.Errorf("override not applied: %+v", f)
	}
	nic.Fields = nil
	without, err := sdk.Read(pkgs[file.Modules[nic.Module]], file, nic)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range without.Cycles {
		found = found || strings.Contains(strings.Join(c.Path, " "), "ApplicationGatewayBackendAddressPool")
	}
	if !found {
		t.Errorf("without the override: cycles %+v, want one through ApplicationGatewayBackendAddressPool", without.Cycles)
	}
}

// TestConfigErrors: a kind the SDK cannot serve fails with a KindError that says why.
func TestConfigErrors(t *testing.T) {
	file, pkgs := load(t)
	base := file.Find("network", "PrivateDnsZonesARecord")[0]
	cases := []struct {
		name   string
		change func(k *config.Kind)
		want   string
	}{
		{"record type not fixed", func(k *config.Kind) { k.PathParams = nil }, "pathParams"},
		{"unknown path param", func(k *config.Kind) { k.PathParams = map[string]string{"recordType": "A", "zone": "x"} }, "zone"},
		{"unknown client", func(k *config.Kind) { k.Client = "NoSuchClient" }, "NoSuchClient"},
		{"unknown field", func(k *config.Kind) {
			k.Fields = map[string]config.FieldOverride{"properties.nope": {Skip: true, Because: "test"}}
		}, "nope"},
		{"unknown get", func(k *config.Kind) { k.Get = "GetNothing" }, "Get"},
		{"withParent with a delete", func(k *config.Kind) { k.WithParent = &config.Because{Because: "test"} }, "withParent: Azure has a DELETE"},
		{"unknown more client", func(k *config.Kind) {
			k.MoreClients = &config.MoreClients{Clients: []string{"NoSuchClient"}, Because: "test"}
		}, "moreClients"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := base
			c.change(&k)
			_, err := sdk.Read(pkgs[file.Modules[k.Module]], file, k)
			var ke *sdk.KindError
			if !errors.As(err, &ke) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want a KindError mentioning %q", err, c.want)
			}
		})
	}
}

// TestStableJSON: two reads of a kind encode to the same bytes, so a dump can be diffed
// and compared by tests.
func TestStableJSON(t *testing.T) {
	a, _ := json.Marshal(read(t, "network/VirtualNetworksSubnet"))
	b, _ := json.Marshal(read(t, "network/VirtualNetworksSubnet"))
	if !bytes.Equal(a, b) {
		t.Error("two reads of VirtualNetworksSubnet differ")
	}
}

// TestSplitAndParentMadeKinds: moreClients adds another client's operations on the
// resource's path (PostgreSQL's threat protection setting, written by another client than
// reads it), named with their client; withParent lets a named child without DELETE through
// (a server's configurations), and is refused where the name is fixed.
func TestSplitAndParentMadeKinds(t *testing.T) {
	file, pkgs := load(t)
	read := func(group, kind string) *model.Kind {
		t.Helper()
		k := file.Find(group, kind)
		if len(k) == 0 {
			t.Fatalf("%s/%s is not in api/kinds.yaml", group, kind)
		}
		mk, err := sdk.Read(pkgs[file.Modules[k[0].Module]], file, k[0])
		if err != nil {
			t.Fatal(err)
		}
		return mk
	}
	atp := read("dbforpostgresql", "FlexibleServersAdvancedThreatProtectionSettings")
	if atp.Create == nil || atp.Create.Client != "ServerThreatProtectionSettingsClient" || atp.Create.Method != "BeginCreateOrUpdate" {
		t.Errorf("the threat protection setting's create is %+v, want ServerThreatProtectionSettingsClient.BeginCreateOrUpdate", atp.Create)
	}
	if atp.Get.Client != "" || atp.Delete != nil || atp.FixedName != "Default" {
		t.Errorf("the threat protection setting: get %+v, delete %+v, fixed name %q", atp.Get, atp.Delete, atp.FixedName)
	}
	for _, group := range []string{"dbforpostgresql", "dbformysql"} {
		cfg := read(group, "FlexibleServersConfiguration")
		if cfg.WithParent == nil || cfg.WithParent.Source != "config" || cfg.Delete != nil || cfg.FixedName != "" || cfg.Create == nil {
			t.Errorf("%s configuration: withParent %+v, delete %+v, fixed name %q, create %+v", group, cfg.WithParent, cfg.Delete, cfg.FixedName, cfg.Create)
		}
	}
	k := file.Find("sql", "ServersAuditingSetting")[0]
	k.WithParent = &config.Because{Because: "test"}
	if _, err := sdk.Read(pkgs[file.Modules[k.Module]], file, k); err == nil || !strings.Contains(err.Error(), "its name is fixed") {
		t.Errorf("withParent on a singleton: err = %v", err)
	}
}
