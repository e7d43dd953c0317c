package model

import "strings"

// Kind is one generated kind: the config's names plus everything read from the SDK.
type Kind struct {
	// Kind is the Kubernetes kind, named as ASO names it (VirtualNetworksSubnet).
	Kind string `json:"kind"`
	// DerivedKind is the name ASO's naming rule gives the ARM type (every type segment,
	// the last one singular); when it differs from Kind, ASO renamed the kind.
	DerivedKind string `json:"derivedKind"`
	// Group is the API group, ASO's and aztenant's spelling.
	Group Group `json:"group"`
	// Module is the SDK module the facts come from.
	Module Module `json:"module"`
	// Client is the SDK operation group (VirtualNetworksClient).
	Client string `json:"client"`
	// Existing marks a kind aztenant already has, written by hand, that moves onto the
	// generator (its API must stay as it is, or change with a conversion).
	Existing bool `json:"existing,omitempty"`

	// ARMType is the full resource type: Microsoft.Network/virtualNetworks/subnets.
	ARMType string `json:"armType"`
	// Scope is where the top of the type's chain lives.
	Scope Scope `json:"scope"`
	// Path is the resource's URL template (the Get operation's), with path parameters the
	// config fixes (recordType: A) already substituted.
	Path string `json:"path"`
	// Parents is the chain of resources between the scope and this one, outermost first
	// (for a subnet: the virtual network). Segments with a fixed name (blobServices/default)
	// are parents too; Owner names the nearest one that a user names.
	Parents []Segment `json:"parents,omitempty"`
	// Owner is the ARM type of the resource a Kubernetes owner reference points at: the
	// nearest parent with a name parameter, or the scope's type (resource group,
	// subscription, tenant) when there is none, or "" for an extension resource (any scope).
	Owner string `json:"owner"`
	// NameParam is the URL parameter that names this resource (virtualNetworkName).
	NameParam string `json:"nameParam,omitempty"`
	// FixedName is set when the resource's own name is fixed by the URL (default).
	FixedName string `json:"fixedName,omitempty"`
	// NameValues are the only names Azure accepts, when the name parameter is an enum
	// (a storage account's managementPolicies: default).
	NameValues []string `json:"nameValues,omitempty"`
	// APIVersion is the Get operation's api-version; APIVersions lists every version the
	// client's operations send (normally the same one).
	APIVersion  string   `json:"apiVersion"`
	APIVersions []string `json:"apiVersions"`
	// AcceptedAPIVersions are the api-versions the SDK's released modules have sent for
	// the type (history.File): Azure served them, so the emulator accepts them too.
	AcceptedAPIVersions []string `json:"acceptedApiVersions,omitempty"`
	// SpecNotReturned are body paths Azure's REST API specs say Azure takes on a write and
	// never returns (specfacts.File), read from SpecSource; the emitter adds them to the
	// adapter's Facts.NotReturned where the config says nothing of the field.
	SpecNotReturned []string `json:"specNotReturned,omitempty"`
	SpecSource      string   `json:"specSource,omitempty"`

	// Resource is the Go name of the resource body type (the Get response's type), a key
	// of Types.
	Resource string `json:"resource"`
	// Properties is the type of the resource's `properties` field ("" if it has none),
	// the part ASO flattens into the spec.
	Properties string `json:"properties,omitempty"`

	// ChildName is how Azure's documented PUT examples spell the resource's name in their
	// answers (examples.Kind.ChildName): "path" (parent/child), "last" or "" (unknown).
	ChildName string `json:"childName,omitempty"`

	// The resource's lifecycle operations; nil when the client has none.
	Get    *Operation `json:"get"`
	Create *Operation `json:"create,omitempty"`
	// Update is a PATCH of the resource with a real body; UpdateTags a PATCH that only
	// carries tags (network's TagsObject).
	Update     *Operation  `json:"update,omitempty"`
	UpdateTags *Operation  `json:"updateTags,omitempty"`
	Delete     *Operation  `json:"delete,omitempty"`
	Lists      []Operation `json:"lists,omitempty"`
	Actions    []Operation `json:"actions,omitempty"`
	// Other operations of the client that are none of the above (HEAD checks, GETs of
	// sub-paths, POSTs at other paths), kept so nothing the client does is silently lost.
	Other []Operation `json:"other,omitempty"`

	// Types holds every named type reachable from the resource and the operations' bodies,
	// by Go name. Embedded resources cut to their ID (see Field.IDOnly) are not expanded.
	Types map[string]*Type `json:"types"`
	// Cycles are the recursions left in the type graph after the cuts: each lists one edge
	// that closes a loop. Emitters must break them (config: idOnly or skip).
	Cycles []Cycle `json:"cycles,omitempty"`
	// Cuts are the fields whose types the reader did not expand, and why.
	Cuts []Cut `json:"cuts,omitempty"`
	// Unresolved lists what the reader could not classify; a usable kind has none.
	Unresolved []string `json:"unresolved,omitempty"`

	// Name is Azure's rule for the resource's name, from the config (the SDK has none).
	Name *NameRule `json:"name,omitempty"`
	// SpecMarkers are validation markers on the spec as a whole, from the config.
	SpecMarkers *MarkersFlag `json:"specMarkers,omitempty"`
	// OwnerMessage is the message of the rule on spec.owner.armId, from the config ("":
	// the generator's).
	OwnerMessage string `json:"ownerMessage,omitempty"`
	// ObjectMarkers are validation markers on the kind as a whole, from the config.
	ObjectMarkers *MarkersFlag `json:"objectMarkers,omitempty"`
	// Doc is a paragraph the config adds to the kind's description.
	Doc string `json:"doc,omitempty"`
	// LocationMessage is the message of the rule keeping spec.location, from the config.
	LocationMessage string `json:"locationMessage,omitempty"`
	// ConfigMapExports are the status values spec.operatorSpec.configMaps may send to
	// ConfigMaps, from the config (exports).
	ConfigMapExports *ExportsFlag `json:"configMapExports,omitempty"`
	// SecretExports are the secret values spec.operatorSpec.secrets may send to Secrets,
	// from the config (exports); the kind's overlay reads them (Hooks.Secrets).
	SecretExports *ExportsFlag `json:"secretExports,omitempty"`
	// StatusFields are flat string fields of the status read from nested paths of Azure's
	// answer, from the config (status); the objects their paths go through leave the status.
	StatusFields *StatusFieldsFlag `json:"statusFields,omitempty"`
	// Extension, for an extension resource (Scope extension), is what its owner may be,
	// from the config (extension).
	Extension *ExtensionFlag `json:"extension,omitempty"`
	// WithParent, from the config (withParent), says that Azure creates every resource of
	// the kind with its parent though its name is not fixed (a server's configurations),
	// and Delete is then nil: Azure has no DELETE for it.
	WithParent *Flag `json:"withParent,omitempty"`
}

// ExtensionFlag is what an extension resource may sit on (config: extension).
type ExtensionFlag struct {
	// Owners are the kinds spec.owner.name may name, the first the default.
	Owners []OwnerKind `json:"owners"`
	Flag
}

// OwnerKind is a kind an extension resource's owner may name.
type OwnerKind struct {
	// Group is the API group, ASO's and aztenant's spelling.
	Group Group  `json:"group"`
	Kind  string `json:"kind"`
}

// ExportsFlag are a kind's fixed outputs, and why (config: exports).
type ExportsFlag struct {
	Doc  string   `json:"doc"`
	Keys []Export `json:"keys"`
	Flag
}

// StatusFieldsFlag are a kind's flat status fields read from nested paths, and why.
type StatusFieldsFlag struct {
	Fields []StatusField `json:"fields"`
	Flag
}

// StatusField is one flat string field of the status: its JSON and Go names, the dotted
// path of Azure's answer it is read from (properties spelled out), its doc.
type StatusField struct {
	Name   string `json:"name"`
	GoName string `json:"goName,omitempty"`
	Path   string `json:"path"`
	Doc    string `json:"doc"`
}

// Export is one fixed output: its key, the Go name of its destination where the config
// gives one, and the status field it is read from (none for a Secret's).
type Export struct {
	Name   string `json:"name"`
	GoName string `json:"goName,omitempty"`
	Status string `json:"status,omitempty"`
	Doc    string `json:"doc"`
}

// NameRule is what Azure accepts as a resource's name (config: name).
type NameRule struct {
	MinLength int    `json:"minLength"`
	MaxLength int    `json:"maxLength"`
	Pattern   string `json:"pattern,omitempty"`
	// MetadataName: without spec.azureName, a metadata.name longer than MaxLength is
	// refused.
	MetadataName bool `json:"metadataName,omitempty"`
	// Doc is spec.azureName's description from the config ("": the generator's).
	Doc string `json:"doc,omitempty"`
	// UUID: the name is a GUID the adapter derives when spec.azureName is empty (never
	// metadata.name); spec.azureName may be set once.
	UUID bool `json:"uuid,omitempty"`
	Flag
}

// MarkersFlag are kubebuilder validation markers without their +kubebuilder:validation:
// prefix, and why (config: markers).
type MarkersFlag struct {
	Markers []string `json:"markers"`
	Flag
}

// Group is an API group in ASO's and in aztenant's spelling (network.azure.com,
// network.aztenant.io): aztenant keeps ASO's group names under its own domain, so ASO
// manifests map mechanically.
type Group struct {
	Name     string `json:"name"`
	ASO      string `json:"aso"`
	Aztenant string `json:"aztenant"`
}

// Dir is the group's name as a directory and Go package name: ASO's dotted groups
// (network.frontdoor) without their dots (networkfrontdoor, api/networkfrontdoor/v1alpha1,
// the import alias networkfrontdoorv1alpha1); the name itself for every other group.
func (g Group) Dir() string { return strings.ReplaceAll(g.Name, ".", "") }

// GoPrefix is the group's name as the start of a Go identifier, each dotted part
// capitalised (network.frontdoor: NetworkFrontdoor), prefixing an adapter whose kind name
// another group has too.
func (g Group) GoPrefix() string {
	var b strings.Builder
	for _, part := range strings.Split(g.Name, ".") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// Module is a pinned SDK module and the package the facts were read from.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Package string `json:"package"`
}

// Scope says where a resource chain starts.
type Scope string

const (
	ScopeTenant        Scope = "tenant"
	ScopeSubscription  Scope = "subscription"
	ScopeResourceGroup Scope = "resourceGroup"
	// ScopeExtension is an extension resource that may sit on any ARM ID (`/{scope}`),
	// such as a role assignment.
	ScopeExtension Scope = "extension"
)

// Segment is one resource in an ARM path: its full type and how it is named.
type Segment struct {
	Type string `json:"type"`
	// NameParam is the URL parameter naming it; FixedName the literal name when the URL
	// fixes it (blobServices/default). Exactly one is set.
	NameParam string `json:"nameParam,omitempty"`
	FixedName string `json:"fixedName,omitempty"`
}

// Verb is what an operation does to the kind's resource.
type Verb string

const (
	VerbGet        Verb = "get"
	VerbCreate     Verb = "create"
	VerbUpdate     Verb = "update"
	VerbUpdateTags Verb = "updateTags"
	VerbDelete     Verb = "delete"
	VerbList       Verb = "list"
	VerbAction     Verb = "action"
	VerbOther      Verb = "other"
)

// Operation is one exported method of the client.
type Operation struct {
	// Method is the SDK method (BeginCreateOrUpdate, NewListPager, ListKeys).
	Method string `json:"method"`
	// Client is the SDK client serving the method when it is not the kind's own
	// (config: moreClients).
	Client string `json:"client,omitempty"`
	Verb   Verb   `json:"verb"`
	// Name is the operation's short name: for an action its URL segment (listKeys), for
	// others the method without Begin/New/Pager (CreateOrUpdate, List).
	Name string `json:"name"`
	// HTTPMethod is GET, PUT, PATCH, DELETE, POST or HEAD.
	HTTPMethod string `json:"httpMethod"`
	// Path is the URL template, as the SDK writes it.
	Path       string   `json:"path"`
	PathParams []string `json:"pathParams,omitempty"`
	APIVersion string   `json:"apiVersion"`
	// StatusCodes are the success codes the SDK accepts.
	StatusCodes []int `json:"statusCodes,omitempty"`
	// LongRunning is true for Begin… methods (a poller); FinalStateVia is the poller's
	// final-state option when the SDK sets one (azure-async-operation, location,
	// original-uri, operation-location).
	LongRunning   bool   `json:"longRunning,omitempty"`
	FinalStateVia string `json:"finalStateVia,omitempty"`
	// Pageable is true for pagers; Item is then the type of one listed element.
	Pageable bool     `json:"pageable,omitempty"`
	Item     *TypeRef `json:"item,omitempty"`
	// ListScope, for a list, is where it lists: resourceGroup, subscription, tenant,
	// extension (an extension type's list at any {scope}), resource (at one resource of
	// another provider) or parent (the children of one parent resource).
	ListScope string `json:"listScope,omitempty"`
	// Request is the body the operation sends (nil: none); RequestOptional when the body
	// travels in the options struct.
	Request         *TypeRef `json:"request,omitempty"`
	RequestOptional bool     `json:"requestOptional,omitempty"`
	// Response is the body of a success response (nil: none, headers only).
	Response *TypeRef `json:"response,omitempty"`
}

// TypeKind classifies a type reference.
type TypeKind string

const (
	KindString  TypeKind = "string"
	KindBool    TypeKind = "bool"
	KindInt32   TypeKind = "int32"
	KindInt64   TypeKind = "int64"
	KindFloat32 TypeKind = "float32"
	KindFloat64 TypeKind = "float64"
	KindTime    TypeKind = "time"
	KindBytes   TypeKind = "bytes"
	// KindAny is free-form JSON (Go any / interface{}).
	KindAny   TypeKind = "any"
	KindSlice TypeKind = "slice"
	KindMap   TypeKind = "map"
	// KindNamed refers to an entry of Kind.Types (struct, enum or union).
	KindNamed TypeKind = "named"
)

// TypeRef is the type of a field or body. Pointers are dropped: in the SDK every field is
// a pointer, and JSON has no use for the difference.
type TypeRef struct {
	Kind TypeKind `json:"kind"`
	// Name is the Go type's name: the Types key for KindNamed, or a named scalar's name
	// (a string type without known values) for the scalar kinds.
	Name string `json:"name,omitempty"`
	// Elem is the element of a slice or the value of a map (keys are strings).
	Elem *TypeRef `json:"elem,omitempty"`
}

// TypeShape is what a named type is.
type TypeShape string

const (
	ShapeStruct TypeShape = "struct"
	ShapeEnum   TypeShape = "enum"
	// ShapeUnion is a polymorphic (discriminated) type: an SDK …Classification interface.
	ShapeUnion TypeShape = "union"
)

// Type is a named type of the SDK package.
type Type struct {
	Name  string    `json:"name"`
	Shape TypeShape `json:"shape"`
	Doc   string    `json:"doc,omitempty"`
	// ResourceShaped is true when the struct looks like an ARM resource of its own (it has
	// id, name and type), so embedding it inside another resource repeats that resource.
	ResourceShaped bool `json:"resourceShaped,omitempty"`
	// SubResource is true for a struct whose only writable field is an ARM ID (SDK's
	// SubResource): a reference to another resource.
	SubResource bool    `json:"subResource,omitempty"`
	Fields      []Field `json:"fields,omitempty"`
	Enum        *Enum   `json:"enum,omitempty"`
	Union       *Union  `json:"union,omitempty"`
}

// Field is one property of a struct.
type Field struct {
	// GoName is the SDK's field name; JSON the wire name read from the SDK's MarshalJSON /
	// UnmarshalJSON code.
	GoName string  `json:"goName"`
	JSON   string  `json:"json"`
	Doc    string  `json:"doc,omitempty"`
	Type   TypeRef `json:"type"`
	// AdditionalProperties: the field is a map whose entries are the object's other JSON
	// properties, those the spec does not name (JSON is then "").
	AdditionalProperties bool `json:"additionalProperties,omitempty"`
	// Format is the wire format of a time or bytes field (rfc3339, rfc1123, date, unix,
	// base64, base64url), from the SDK's (un)populate helpers.
	Format   string `json:"format,omitempty"`
	ReadOnly bool   `json:"readOnly,omitempty"`
	Required bool   `json:"required,omitempty"`
	// Reference is set when the field holds (or is) the ARM ID of another resource.
	Reference *Flag `json:"reference,omitempty"`
	// Secret is set for values that must not sit in a spec in clear: write-only passwords
	// and keys sent to Azure (or, when ReadOnly, keys Azure returns).
	Secret *Flag `json:"secret,omitempty"`
	// IDOnly is set when only the ID of the field's type is kept (an embedded resource,
	// as ASO's SubResourceEmbedded does); the type is then not expanded.
	IDOnly *Flag `json:"idOnly,omitempty"`
	// Skip is set when the config drops the field.
	Skip *Flag `json:"skip,omitempty"`
	// Rename is the name the config gives the field in the API type ("" keeps JSON).
	Rename string `json:"rename,omitempty"`
	// OpenEnum is set when the config drops an enum's values (Azure's list grows faster
	// than the SDK's).
	OpenEnum *Flag `json:"openEnum,omitempty"`
	// Names is set when the config says the field holds a name, not an ARM ID, that Azure
	// turns into a resource or a destination (a node resource group, a capture's Data
	// Lake account), which the Tenant must bound.
	Names *NameFlag `json:"names,omitempty"`
	// Answered is set when the config says how Azure answers the field where it does not
	// echo what was written (a display-name location, XML re-indented, a value it keeps).
	Answered *AnswerFlag `json:"answered,omitempty"`
	// Markers are validation markers the config adds (bounds and rules of Azure's the
	// SDK does not carry).
	Markers *MarkersFlag `json:"markers,omitempty"`
	// Default is the field's default from the config (a +kubebuilder:default= value).
	Default string `json:"default,omitempty"`
	// GoType is the Go name the config gives the struct the field holds ("" for the
	// generator's).
	GoType string `json:"goType,omitempty"`
	// StringMap: the config holds the field as a map of strings (the SDK's struct lists some
	// of the keys beside its additional properties).
	StringMap *Flag `json:"stringMap,omitempty"`
	// ListMapKey: the list is a map keyed by this field of its elements (config).
	ListMapKey string `json:"listMapKey,omitempty"`
	// ListType set: the list is a set (config).
	ListType string `json:"listType,omitempty"`
	// IdentityReference is the shape of an identity map's references (config:
	// nameOrArmId), "" for the shared one.
	IdentityReference string `json:"identityReference,omitempty"`
	// Optional is set when the config lets the spec leave out a field the SDK requires
	// (Required is then false).
	Optional *Flag `json:"optional,omitempty"`
	// RequiredByConfig is set when the config makes the spec hold a field the SDK leaves
	// optional (Required is then true).
	RequiredByConfig *Flag `json:"requiredByConfig,omitempty"`
	// Status is set when the config reports the field, which the spec holds, in the
	// status too, as Azure answers it (a resource group's location, the exact Redis
	// version running).
	Status *Flag `json:"status,omitempty"`
	// FromConfig is set when the config lets a string field be read from a ConfigMap key
	// (the spec's <name>FromConfig beside it).
	FromConfig *FromConfigFlag `json:"fromConfig,omitempty"`
	// ReferenceType is the Go type, written by hand in the API package, holding a string
	// ARM ID flagged as a reference ("" for azurev1alpha1.ResourceReference).
	ReferenceType string `json:"referenceType,omitempty"`
}

// FromConfigFlag is the <name>FromConfig field beside a string field (config: fromConfig).
type FromConfigFlag struct {
	Doc     string   `json:"doc,omitempty"`
	Markers []string `json:"markers,omitempty"`
	Flag
}

// AnswerFlag is how Azure answers a field, and why (config: answered).
type AnswerFlag struct {
	// Normalize names the reconciler's normalisation table entry ("" for none).
	Normalize string `json:"normalize,omitempty"`
	// NotReturned: Azure may leave the field out of its answer.
	NotReturned bool `json:"notReturned,omitempty"`
	// Forced is the value Azure keeps whatever is written (nil for none).
	Forced any `json:"forced,omitempty"`
	// OpenValues are the elements Azure adds to the list on its own.
	OpenValues []any `json:"openValues,omitempty"`
	// OpenSet: Azure holds named elements in the list the spec does not name.
	OpenSet bool `json:"openSet,omitempty"`
	Flag
}

// NameFlag says what Azure makes of a name a field holds, and why (config: names).
type NameFlag struct {
	// Means is resourceGroup, subscription, or the ARM type of the resource named.
	Means string `json:"means"`
	// Subscription is the JSON path, from the object holding the field, of the
	// subscription the name lies in ("" when none is given beside it).
	Subscription string `json:"subscription,omitempty"`
	Flag
}

// Flag is a fact about a field and where it comes from.
type Flag struct {
	// Source is "sdk" (read from the SDK's names, types or docs) or "config".
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// Enum is a named scalar type with the SDK's PossibleXxxValues.
type Enum struct {
	// Base is the underlying kind (string for nearly all).
	Base   TypeKind    `json:"base"`
	Values []EnumValue `json:"values"`
}

// EnumValue is one constant of an enum.
type EnumValue struct {
	GoName string `json:"goName"`
	Value  string `json:"value"`
	Doc    string `json:"doc,omitempty"`
}

// Union is a discriminated type: the JSON property that selects the variant and the
// variants by discriminator value.
type Union struct {
	// Discriminator is the JSON property (type, kind, odata.type); "" if the SDK's
	// unmarshal helper was not found.
	Discriminator string `json:"discriminator,omitempty"`
	// Base is the struct used when no variant matches.
	Base     string    `json:"base,omitempty"`
	Variants []Variant `json:"variants"`
}

// Variant is one concrete type of a union.
type Variant struct {
	Value string `json:"value"`
	Type  string `json:"type"`
}

// Cycle is one recursion: Edge (Type.jsonField) closes a loop back to Type To; Path is
// the loop, as Type.jsonField steps.
type Cycle struct {
	Edge string   `json:"edge"`
	To   string   `json:"to"`
	Path []string `json:"path"`
}

// Cut is a field whose type the reader did not expand.
type Cut struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}
