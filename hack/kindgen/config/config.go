package config

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// File is api/kinds.yaml.
type File struct {
	// Modules maps a short alias (network) to an SDK module path.
	Modules map[string]string `json:"modules"`
	// Groups maps an ASO group short name (network, as in network.azure.com) to the
	// aztenant group it becomes; a group not listed becomes <name>.aztenant.io.
	Groups map[string]string `json:"groups,omitempty"`
	Kinds  []Kind            `json:"kinds"`
}

// Kind is one kind to generate.
type Kind struct {
	// Kind is the Kubernetes kind as ASO names it (VirtualNetworksSubnet).
	Kind string `json:"kind"`
	// Group is ASO's group without .azure.com (network).
	Group string `json:"group"`
	// Module is an alias of File.Modules.
	Module string `json:"module"`
	// Client is the SDK operation group (SubnetsClient).
	Client string `json:"client"`
	// Get names the SDK method that reads the resource when the client serves several
	// types (cosmos's SQLResourcesClient: GetSQLDatabase); by default the method Get, or
	// the client's only GET of one resource.
	Get string `json:"get,omitempty"`
	// Existing marks the kinds aztenant already has, written by hand, that move onto
	// the generator.
	Existing bool `json:"existing,omitempty"`
	// PathParams fixes URL parameters of a client that serves several types, such as a
	// record-set client's recordType: A.
	PathParams map[string]string `json:"pathParams,omitempty"`
	// Fields overrides facts about fields, by dotted JSON path from the resource
	// (properties.subnets).
	Fields map[string]FieldOverride `json:"fields,omitempty"`
	// Name is Azure's rule for the resource's name, which the SDK does not carry
	// (spec.azureName takes 1 to 260 characters without it).
	Name *NameRule `json:"name,omitempty"`
	// Spec holds validation markers on the spec as a whole: rules across fields.
	Spec *SpecRules `json:"spec,omitempty"`
	// OwnerMessage is the message of the CRD's rule on spec.owner.armId, where a kind
	// written by hand gave its own (its API stays as it was).
	OwnerMessage string `json:"ownerMessage,omitempty"`
	// Object holds validation markers on the kind as a whole, rules over metadata and
	// spec (a metadata.name Azure would refuse), written before the azureName rule.
	Object *SpecRules `json:"object,omitempty"`
	// Doc is a paragraph added to the kind's description (kubectl explain), where a kind
	// written by hand told more of Azure's behaviour than the SDK's doc (its limits).
	Doc string `json:"doc,omitempty"`
	// LocationMessage is the message of the CRD's rule keeping spec.location, where a kind
	// written by hand gave its own.
	LocationMessage string `json:"locationMessage,omitempty"`
	// Exports are the resource's fixed outputs spec.operatorSpec may send to ConfigMaps
	// (status fields) and Secrets (values an overlay reads), beside its CEL exports.
	Exports *Exports `json:"exports,omitempty"`
	// Status holds flat string fields of the status read from nested paths of Azure's
	// answer (an AKS cluster's powerState from powerState.code), where a kind written by
	// hand reported them so.
	Status *StatusFields `json:"status,omitempty"`
	// Extension is required for, and only for, an extension resource (the SDK's path
	// starts at /{scope}: role assignments, locks, diagnostic settings): the kinds its
	// spec.owner may name, or any ARM ID of the subscription.
	Extension *Extension `json:"extension,omitempty"`
	// MoreClients are further SDK clients whose operations on the resource's own path are
	// the resource's, where the SDK splits them (PostgreSQL's threat protection setting:
	// read by AdvancedThreatProtectionSettingsClient, written by
	// ServerThreatProtectionSettingsClient).
	MoreClients *MoreClients `json:"moreClients,omitempty"`
	// WithParent says, for a kind whose name is not fixed by the URL and that Azure has
	// no DELETE for, that Azure creates every one with the parent (a server's
	// configurations: its parameters): the object manages the existing one without
	// adopt, and deleting it leaves it to go with its parent (reconcilers.Facts.WithParent).
	// The SDK cannot tell it from a child without DELETE that Azure does not make (a Key
	// Vault secret), so the config says it.
	WithParent *Because `json:"withParent,omitempty"`
}

// MoreClients names further clients serving a resource's operations.
type MoreClients struct {
	// Clients are the SDK client type names.
	Clients []string `json:"clients"`
	// Because says why; required.
	Because string `json:"because"`
}

// Because is an override that is only its reason.
type Because struct {
	// Because says why; required.
	Because string `json:"because"`
}

// StatusFields are flat string fields of the status, each read from a nested path of
// Azure's answer. The objects their paths go through leave the status: the flat fields
// take their place.
type StatusFields struct {
	// Fields are the fields, in order.
	Fields []StatusField `json:"fields"`
	// Because says why; required.
	Because string `json:"because"`
}

// StatusField is one flat string field of the status.
type StatusField struct {
	// Name is its JSON name in the status (powerState).
	Name string `json:"name"`
	// Path is the dotted JSON path of the string in Azure's answer, properties spelled
	// out (properties.powerState.code, identity.principalId).
	Path string `json:"path"`
	// GoName is its Go name where it is not Name with a capital (OIDCIssuerURL).
	GoName string `json:"goName,omitempty"`
	// Doc is its description.
	Doc string `json:"doc"`
}

// IdentityReferences are the shapes an identity's userAssignedIdentities may take
// (FieldOverride.IdentityReference), by the Go type of their elements.
var IdentityReferences = map[string]string{
	"nameOrArmId": "azurev1alpha1.UserAssignedIdentityNameDetails",
}

// Extension says what an extension resource may sit on.
type Extension struct {
	// Owners are the kinds spec.owner.name may name with owner.group and owner.kind, as
	// ASO's short group and kind (resources/ResourceGroup, storage/StorageAccount); the
	// first is the kind of an owner named without group and kind. Each is a kind of this
	// file, generated or written by hand.
	Owners []string `json:"owners"`
	// Because says why; required.
	Because string `json:"because"`
}

// Exports are a kind's fixed outputs.
type Exports struct {
	// ConfigMaps are values of the status, which are not secret, each under a key of
	// spec.operatorSpec.configMaps naming the ConfigMap key it is written to.
	ConfigMaps *ExportSet `json:"configMaps,omitempty"`
	// Secrets are secret values (keys, connection strings), each under a key of
	// spec.operatorSpec.secrets naming the Secret key it is written to. Their values come
	// from the kind's overlay (reconcilers/kinds/<kind>_overlay.go), which sets
	// Hooks.Secrets: they are read with an ARM action (listKeys), which is behaviour.
	Secrets *ExportSet `json:"secrets,omitempty"`
	// Because says why; required.
	Because string `json:"because"`
}

// ExportSet is one kind of destination's outputs.
type ExportSet struct {
	// Doc is the description of spec.operatorSpec.configMaps (or secrets).
	Doc string `json:"doc"`
	// Keys are the outputs, in order.
	Keys []Export `json:"keys"`
}

// Export is one output.
type Export struct {
	// Name is its key under spec.operatorSpec.configMaps or secrets (clientId).
	Name string `json:"name"`
	// GoName is the Go name of its destination field where the API kept from a kind
	// written by hand spells it otherwise than Name with a capital (SSLPort for sslPort).
	GoName string `json:"goName,omitempty"`
	// Status is the JSON name of the status field a ConfigMap value is read from (a
	// string), dotted for one inside an object (primaryEndpoints.blob); a Secret's value
	// comes from the overlay, so secrets' keys have none.
	Status string `json:"status,omitempty"`
	// Doc is its description.
	Doc string `json:"doc"`
}

// NameRule is what Azure accepts as the resource's name, on spec.azureName.
type NameRule struct {
	// MinLength is 1 unless set; MaxLength is required.
	MinLength int `json:"minLength,omitempty"`
	MaxLength int `json:"maxLength"`
	// Pattern is the name's regular expression ("" for none).
	Pattern string `json:"pattern,omitempty"`
	// MetadataName: an object without spec.azureName refuses a metadata.name longer than
	// MaxLength (the name it would give the resource).
	MetadataName bool `json:"metadataName,omitempty"`
	// Doc is spec.azureName's description instead of the generator's, where a kind
	// written by hand spelled the rule out in words.
	Doc string `json:"doc,omitempty"`
	// UUID: Azure names the resource with a GUID (a role assignment). spec.azureName does
	// not default to metadata.name: without it the adapter derives a UUIDv5 of the
	// object's namespace, name and scope (Hooks.ARMID), so the same object always names
	// the same resource; once set it cannot change. With pattern and maxLength 36, without
	// minLength and metadataName.
	UUID bool `json:"uuid,omitempty"`
	// Because says where the rule comes from; required.
	Because string `json:"because"`
}

// SpecRules are markers on the spec type.
type SpecRules struct {
	// Markers are kubebuilder validation markers, as for a field.
	Markers []string `json:"markers"`
	// Because says why; required.
	Because string `json:"because"`
}

// FieldOverride changes what the reader concluded about one field.
type FieldOverride struct {
	// Rename gives the field another name in the API type.
	Rename string `json:"rename,omitempty"`
	// Skip leaves the field out.
	Skip bool `json:"skip,omitempty"`
	// IDOnly keeps only the ID of the field's type (breaks a cycle, as ASO's
	// SubResourceEmbedded); false expands an embedded resource the reader would cut.
	IDOnly *bool `json:"idOnly,omitempty"`
	// Secret and Reference set or clear the reader's flags.
	Secret    *bool `json:"secret,omitempty"`
	Reference *bool `json:"reference,omitempty"`
	// OpenEnum drops the enum's values from the schema: Azure's enum is extensible and the
	// SDK's list is out of date (VM sizes).
	OpenEnum bool `json:"openEnum,omitempty"`
	// Names says the field holds a name, not an ARM ID, that Azure turns into a resource
	// or a destination, which the Tenant must bound (reconcilers.Facts.Names): one of
	// resourceGroup (a group Azure creates or writes into), subscription (a subscription
	// given by ID), or the ARM type of the resource the name names
	// (Microsoft.Storage/storageAccounts). A string or a list of strings.
	Names string `json:"names,omitempty"`
	// Subscription, with names, is the JSON path, from the object holding the field, of
	// the subscription the name lies in: a subscription ID, or an ARM ID whose
	// subscription Azure uses (dataLakeSubscriptionId, vnetConfiguration.infrastructureSubnetId).
	Subscription string `json:"subscription,omitempty"`
	// Answered says how Azure answers the field where it does not echo what was
	// written (issue 27): the reconciler's Facts.Normalize, NotReturned, Forced,
	// OpenValues and OpenSets.
	Answered *Answered `json:"answered,omitempty"`
	// Markers are kubebuilder validation markers without their +kubebuilder:validation:
	// prefix (MaxLength=32, XValidation:rule="self == oldSelf",message="..."): bounds and
	// rules of Azure's the SDK does not carry. One named as a marker the generator writes
	// (MaxLength) takes its place; XValidation rules are added.
	Markers []string `json:"markers,omitempty"`
	// Doc replaces the field's description (kubectl explain) where a kind written by hand
	// said more than the SDK's doc (what cannot change, what a value means).
	Doc string `json:"doc,omitempty"`
	// Optional: the spec may leave the field out though the SDK says Azure requires it
	// (its Default fills it in).
	Optional bool `json:"optional,omitempty"`
	// Required: the spec must hold the field though the SDK leaves it optional, where
	// Azure needs it to create the resource (a PostgreSQL server's sku and version): the
	// CRD lists it as required and its Go field is a value, not a pointer.
	Required bool `json:"required,omitempty"`
	// Default is the field's default, the value of a +kubebuilder:default= marker
	// ({"api://AzureADTokenExchange"}, "None").
	Default string `json:"default,omitempty"`
	// Status: the field, which the spec holds, is reported in the status too, as Azure
	// answers it (a resource group's location; the exact Redis version running for the
	// major version asked).
	Status bool `json:"status,omitempty"`
	// GoName is the field's Go name, and GoType the Go name of the struct it holds (in the
	// spec; the status's gets its Status suffix), where a kind written by hand named them
	// otherwise than the SDK (Sku, not SKU): its Go API stays as it was.
	GoName string `json:"goName,omitempty"`
	GoType string `json:"goType,omitempty"`
	// StringMap: the field is a map of strings, where the SDK's model lists some of the keys
	// Azure takes as fields beside its additional properties (a cache's redisConfiguration).
	StringMap bool `json:"stringMap,omitempty"`
	// ListMapKey: the list is a map keyed by this field of its elements (+listType=map,
	// +listMapKey): the API server refuses two elements with the same key.
	ListMapKey string `json:"listMapKey,omitempty"`
	// ListType set: the list is a set (+listType=set): the API server refuses an element
	// twice (a node pool's availability zones). A map is listMapKey's.
	ListType string `json:"listType,omitempty"`
	// IdentityReference, on an identity's userAssignedIdentities, is the shape of its
	// references: nameOrArmId, a UserAssignedIdentity of the namespace by name or an
	// identity by ARM ID, without the group and kind of the shared reference, where a
	// kind written by hand had it so (azurev1alpha1.UserAssignedIdentityNameDetails).
	IdentityReference string `json:"identityReference,omitempty"`
	// FromConfig: a string field may also be read from a ConfigMap key of the object's
	// namespace, as ASO's importConfigMapMode: the spec holds <name>FromConfig (an
	// azurev1alpha1.ConfigMapReference) beside it, which Resolve reads (a role
	// assignment's principalId from an identity's exported principalId).
	FromConfig *FromConfig `json:"fromConfig,omitempty"`
	// ReferenceType: the Go type, written by hand in the kind's API package, that holds a
	// string ARM ID flagged as a reference, in place of azurev1alpha1.ResourceReference,
	// where Azure's ID can be named otherwise than by ARM ID or object (a built-in role by
	// its well-known name). The kind's overlay puts ARM's value in the body (its Desired).
	ReferenceType string `json:"referenceType,omitempty"`
	// Because says why; required.
	Because string `json:"because"`
}

// FromConfig is the <name>FromConfig field beside a string field.
type FromConfig struct {
	// Doc is its description ("" for the generator's).
	Doc string `json:"doc,omitempty"`
	// Markers are its validation markers, as a field's (a rule keeping it).
	Markers []string `json:"markers,omitempty"`
}

// Answered is how Azure answers a field, each fact with the public source in the
// override's because.
type Answered struct {
	// Normalize names the entry of the reconciler's normalisation table
	// (reconcilers/comparison/normalize.go) under which the answer means the spec's value though
	// spelled otherwise: one of Normalizers. intEnum takes the field's enum values, in
	// the SDK's order, as the integers Azure answers.
	Normalize string `json:"normalize,omitempty"`
	// NotReturned: Azure takes the field on a write and may leave it out of its answer.
	NotReturned bool `json:"notReturned,omitempty"`
	// Forced is the value Azure keeps whatever is written (a boolean, string or number):
	// the CRD refuses another.
	Forced any `json:"forced,omitempty"`
	// OpenValues are the elements Azure adds to the list on its own.
	OpenValues []any `json:"openValues,omitempty"`
	// OpenSet: the list is a set of named elements where Azure holds some the spec does
	// not name.
	OpenSet bool `json:"openSet,omitempty"`
}

// Normalizers are the entries of the reconciler's normalisation table an override may
// name (reconcilers/comparison/normalize.go, the Normalize constants); the generated adapters name
// them by constant, so a name the reconciler lacks does not compile.
var Normalizers = map[string]string{
	"case":             "NormalizeCase",
	"location":         "NormalizeLocation",
	"xml":              "NormalizeXML",
	"xmlFragment":      "NormalizeXMLFragment",
	"trimSlash":        "NormalizeTrimSlash",
	"apimScope":        "NormalizeAPIMScope",
	"roleDefinitionID": "NormalizeRoleDefinitionID",
	"intEnum":          "NormalizeIntEnum",
	"cidr":             "NormalizeCIDR",
}

// statusFieldPath is a dotted path of JSON names (properties.powerState.code).
var statusFieldPath = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9]*(\.[a-zA-Z][a-zA-Z0-9]*)+$`)

// check says what is wrong with a kind's flat status fields, or "".
func (s *StatusFields) check() string {
	if s == nil {
		return ""
	}
	if strings.TrimSpace(s.Because) == "" || len(s.Fields) == 0 {
		return "fields and because are required"
	}
	names := map[string]bool{}
	for _, f := range s.Fields {
		switch {
		case !exportName.MatchString(f.Name):
			return fmt.Sprintf("%q is not a JSON name", f.Name)
		case !statusFieldPath.MatchString(f.Path) || f.Path == "properties."+f.Name:
			return fmt.Sprintf("%s: path %q is not a nested dotted JSON path (properties.powerState.code)", f.Name, f.Path)
		case f.GoName != "" && !goExportName.MatchString(f.GoName):
			return fmt.Sprintf("%s: goName %q is not an exported Go name", f.Name, f.GoName)
		case strings.TrimSpace(f.Doc) == "":
			return fmt.Sprintf("%s without doc", f.Name)
		case names[f.Name]:
			return fmt.Sprintf("%s twice", f.Name)
		}
		names[f.Name] = true
	}
	return ""
}

// check says what is wrong with one set of exports (configMaps or secrets), or "": a
// ConfigMap value names the status field it is read from, a Secret's comes from the
// overlay and names none.
func (x *ExportSet) check(what string, fromStatus bool) string {
	if x == nil {
		return ""
	}
	if strings.TrimSpace(x.Doc) == "" || len(x.Keys) == 0 {
		return fmt.Sprintf("exports.%s: doc and keys are required", what)
	}
	names := map[string]bool{}
	for _, k := range x.Keys {
		switch {
		case !exportName.MatchString(k.Name) || (fromStatus && !statusPath.MatchString(k.Status)):
			return fmt.Sprintf("exports.%s: %q from %q: name and status are JSON names (clientId, primaryEndpoints.blob)", what, k.Name, k.Status)
		case !fromStatus && k.Status != "":
			return fmt.Sprintf("exports.%s: %s: a Secret's value comes from the kind's overlay, not the status (%s)", what, k.Name, k.Status)
		case k.GoName != "" && !goExportName.MatchString(k.GoName):
			return fmt.Sprintf("exports.%s: %s: goName %q is not an exported Go name", what, k.Name, k.GoName)
		case strings.TrimSpace(k.Doc) == "":
			return fmt.Sprintf("exports.%s: %s without doc", what, k.Name)
		case names[k.Name]:
			return fmt.Sprintf("exports.%s: %s twice", what, k.Name)
		}
		names[k.Name] = true
	}
	return ""
}

// check says what is wrong with the facts, or "".
func (a *Answered) check() string {
	switch {
	case a.Normalize == "" && !a.NotReturned && a.Forced == nil && len(a.OpenValues) == 0 && !a.OpenSet:
		return "answered without a fact"
	case a.Normalize != "" && Normalizers[a.Normalize] == "":
		return fmt.Sprintf("answered.normalize %q is not one of %s", a.Normalize, strings.Join(sortedKeys(Normalizers), ", "))
	case a.OpenSet && len(a.OpenValues) > 0:
		return "answered: openSet takes every element Azure adds; openValues would say which"
	}
	switch a.Forced.(type) {
	case nil, bool, string, float64:
	default:
		return fmt.Sprintf("answered.forced %v is not a boolean, a string or a number", a.Forced)
	}
	for _, v := range a.OpenValues {
		if v == nil {
			return "answered.openValues holds null"
		}
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Key is the kind's unique name: group/Kind.
func (k Kind) Key() string { return k.Group + "/" + k.Kind }

// Load reads and validates a config file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes and validates config data; name is used in errors.
func Parse(name string, data []byte) (*File, error) {
	var f File
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, &Error{File: name, Problem: err.Error()}
	}
	if err := f.validate(); err != nil {
		if e, ok := err.(*Error); ok {
			e.File = name
		}
		return nil, err
	}
	return &f, nil
}

// Error is a problem with the config file; Kind is "" for file-wide problems.
type Error struct {
	File    string
	Kind    string
	Problem string
}

func (e *Error) Error() string {
	if e.Kind == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Problem)
	}
	return fmt.Sprintf("%s: kind %s: %s", e.File, e.Kind, e.Problem)
}

var (
	kindName = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	// groupName: ASO's short group name, dotted for a subgroup (network.frontdoor).
	groupName = regexp.MustCompile(`^[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)*$`)
	goIdent   = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*$`)
	// nameMeaning: what a names override may say a field holds.
	nameMeaning = regexp.MustCompile(`^(resourceGroup|subscription|[A-Z][A-Za-z0-9]*\.[A-Z][A-Za-z0-9.]*/[a-z][A-Za-z0-9]*)$`)
	// marker: a kubebuilder validation marker without its prefix (MaxLength=32,
	// XValidation:rule=..., items:MaxLength=600 for a list's elements).
	exportName = regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)
	// statusPath is a dotted path of JSON names (primaryEndpoints.blob).
	statusPath = regexp.MustCompile(`^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$`)
	// goExportName is an exported Go identifier (SSLPort).
	goExportName = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	marker       = regexp.MustCompile(`^(items:)?[A-Z][A-Za-z]*(=|:)[^\n]+$`)
)

// checkMarkers says what is wrong with a list of markers, or "".
func checkMarkers(ms []string) string {
	for _, m := range ms {
		if !marker.MatchString(m) {
			return fmt.Sprintf("marker %q is not a kubebuilder validation marker without its +kubebuilder:validation: prefix (MaxLength=32)", m)
		}
	}
	return ""
}

func (f *File) validate() error {
	if len(f.Kinds) == 0 {
		return &Error{Problem: "no kinds"}
	}
	for alias, path := range f.Modules {
		if !strings.HasPrefix(path, "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/") {
			return &Error{Problem: fmt.Sprintf("module %s: %q is not an Azure SDK resourcemanager module", alias, path)}
		}
	}
	seen := map[string]bool{}
	for _, k := range f.Kinds {
		bad := func(format string, args ...any) error {
			return &Error{Kind: k.Key(), Problem: fmt.Sprintf(format, args...)}
		}
		switch {
		case !kindName.MatchString(k.Kind):
			return bad("kind %q is not a Kubernetes kind name", k.Kind)
		case !groupName.MatchString(k.Group) || strings.HasSuffix(k.Group, ".azure.com") || strings.HasSuffix(k.Group, ".aztenant.io"):
			return bad("group %q is not ASO's short group name (network, storage, network.frontdoor)", k.Group)
		case f.Modules[k.Module] == "":
			return bad("module %q is not listed under modules", k.Module)
		case !goIdent.MatchString(k.Client) || !strings.HasSuffix(k.Client, "Client"):
			return bad("client %q is not an SDK client type name", k.Client)
		case seen[k.Key()]:
			return bad("listed twice")
		}
		seen[k.Key()] = true
		if n := k.Name; n != nil {
			switch {
			case strings.TrimSpace(n.Because) == "":
				return bad("name without because")
			case n.MaxLength < 1 || n.MinLength < 0 || n.MinLength > n.MaxLength:
				return bad("name: lengths %d to %d", n.MinLength, n.MaxLength)
			}
			if n.Pattern != "" {
				if _, err := regexp.Compile(n.Pattern); err != nil {
					return bad("name: pattern: %v", err)
				}
			}
			if n.Doc != "" && !strings.HasPrefix(n.Doc, "AzureName ") {
				return bad("name: doc documents spec.azureName and starts with AzureName (Go's doc convention)")
			}
			if n.UUID && (n.MinLength != 0 || n.MetadataName || n.MaxLength != 36 || n.Pattern == "") {
				return bad("name: uuid takes a pattern and maxLength 36, and neither minLength nor metadataName (metadata.name is never the name)")
			}
		}
		if x := k.Extension; x != nil {
			if strings.TrimSpace(x.Because) == "" || len(x.Owners) == 0 {
				return bad("extension: owners and because are required")
			}
			owners := map[string]bool{}
			for _, o := range x.Owners {
				g, kind, ok := strings.Cut(o, "/")
				switch {
				case !ok || !groupName.MatchString(g) || !kindName.MatchString(kind):
					return bad("extension: owner %q is not group/Kind (resources/ResourceGroup)", o)
				case owners[o]:
					return bad("extension: owner %s twice", o)
				case len(f.Find(g, kind)) == 0:
					return bad("extension: owner %s is not a kind of this file", o)
				}
				owners[o] = true
			}
		}
		if m := k.MoreClients; m != nil {
			if strings.TrimSpace(m.Because) == "" || len(m.Clients) == 0 {
				return bad("moreClients: clients and because are required")
			}
			for _, c := range m.Clients {
				if !goIdent.MatchString(c) || !strings.HasSuffix(c, "Client") || c == k.Client {
					return bad("moreClients: %q is not an SDK client type name other than client", c)
				}
			}
		}
		if w := k.WithParent; w != nil && strings.TrimSpace(w.Because) == "" {
			return bad("withParent without because")
		}
		if s := k.Spec; s != nil {
			if strings.TrimSpace(s.Because) == "" || len(s.Markers) == 0 {
				return bad("spec: markers and because are required")
			}
			if p := checkMarkers(s.Markers); p != "" {
				return bad("spec: %s", p)
			}
		}
		if o := k.Object; o != nil {
			if strings.TrimSpace(o.Because) == "" || len(o.Markers) == 0 {
				return bad("object: markers and because are required")
			}
			if p := checkMarkers(o.Markers); p != "" {
				return bad("object: %s", p)
			}
		}
		if strings.ContainsAny(k.OwnerMessage, "\"\n") {
			return bad("ownerMessage holds a quote or a line break")
		}
		if strings.ContainsAny(k.LocationMessage, "\"\n") {
			return bad("locationMessage holds a quote or a line break")
		}
		if e := k.Exports; e != nil {
			if strings.TrimSpace(e.Because) == "" || (e.ConfigMaps == nil && e.Secrets == nil) {
				return bad("exports: configMaps or secrets, and because, are required")
			}
			if p := e.ConfigMaps.check("configMaps", true); p != "" {
				return bad("%s", p)
			}
			if p := e.Secrets.check("secrets", false); p != "" {
				return bad("%s", p)
			}
		}
		if p := k.Status.check(); p != "" {
			return bad("status: %s", p)
		}
		for path, o := range k.Fields {
			if strings.TrimSpace(o.Because) == "" {
				return bad("field %s: override without because", path)
			}
			if o.Skip && (o.Rename != "" || o.IDOnly != nil || o.Names != "" || len(o.Markers) > 0 || o.Doc != "" || o.Optional || o.Required || o.Default != "" ||
				o.Status || o.GoName != "" || o.GoType != "" || o.StringMap || o.ListMapKey != "" || o.ListType != "" || o.IdentityReference != "" || o.FromConfig != nil || o.ReferenceType != "") {
				return bad("field %s: skip with rename, idOnly, names, markers, doc, optional, required, default, status, goName, goType, stringMap, listMapKey, listType, identityReference, fromConfig or referenceType", path)
			}
			if o.ListType != "" && (o.ListType != "set" || o.ListMapKey != "") {
				return bad("field %s: listType is set (a map is listMapKey's), not %q", path, o.ListType)
			}
			if _, ok := IdentityReferences[o.IdentityReference]; o.IdentityReference != "" && (!ok || (path != "userAssignedIdentities" && !strings.HasSuffix(path, ".userAssignedIdentities"))) {
				return bad("field %s: identityReference %q is nameOrArmId, on userAssignedIdentities", path, o.IdentityReference)
			}
			if o.Required && o.Optional {
				return bad("field %s: required and optional", path)
			}
			if o.Status && strings.Contains(strings.TrimPrefix(path, "properties."), ".") {
				return bad("field %s: status is for a field of the resource or of its properties (location)", path)
			}
			if o.FromConfig != nil {
				if o.Skip || o.Rename != "" {
					return bad("field %s: fromConfig with skip or rename", path)
				}
				if p := checkMarkers(o.FromConfig.Markers); p != "" {
					return bad("field %s: fromConfig: %s", path, p)
				}
			}
			if o.ReferenceType != "" {
				if o.Reference == nil || !*o.Reference || o.Rename != "" || o.Skip {
					return bad("field %s: referenceType goes with reference: true, without rename or skip", path)
				}
				if !goExportName.MatchString(o.ReferenceType) {
					return bad("field %s: referenceType %q is not an exported Go name", path, o.ReferenceType)
				}
			}
			if o.ListMapKey != "" && !exportName.MatchString(o.ListMapKey) {
				return bad("field %s: listMapKey %q is not a JSON name", path, o.ListMapKey)
			}
			for _, n := range []string{o.GoName, o.GoType} {
				if n != "" && !goExportName.MatchString(n) {
					return bad("field %s: %q is not an exported Go name", path, n)
				}
			}
			if strings.Contains(o.Default, "\n") {
				return bad("field %s: default holds a line break", path)
			}
			if p := checkMarkers(o.Markers); p != "" {
				return bad("field %s: %s", path, p)
			}
			if o.Names != "" && !nameMeaning.MatchString(o.Names) {
				return bad("field %s: names %q is not resourceGroup, subscription or an ARM resource type (Microsoft.Storage/storageAccounts)", path, o.Names)
			}
			if o.Subscription != "" && (o.Names == "" || o.Names == "subscription") {
				return bad("field %s: subscription goes with names of a resource group or a resource", path)
			}
			if o.Answered != nil {
				if o.Skip {
					return bad("field %s: skip with answered", path)
				}
				if p := o.Answered.check(); p != "" {
					return bad("field %s: %s", path, p)
				}
			}
		}
	}
	return nil
}

// Group returns the aztenant group of an ASO short group name.
func (f *File) Group(name string) string {
	if g, ok := f.Groups[name]; ok {
		return g
	}
	return name + ".aztenant.io"
}

// Find returns the kinds named kind (several when groups share a kind name, as
// servicebus and eventhub do with Namespace); group narrows it when not "".
func (f *File) Find(group, kind string) []Kind {
	var out []Kind
	for _, k := range f.Kinds {
		if k.Kind == kind && (group == "" || k.Group == group) {
			out = append(out, k)
		}
	}
	return out
}

// ModulePaths returns the module paths the given kinds need, sorted and without repeats.
func (f *File) ModulePaths(kinds []Kind) []string {
	set := map[string]bool{}
	for _, k := range kinds {
		set[f.Modules[k.Module]] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
