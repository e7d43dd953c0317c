package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// OwnerReference names the parent of a resource: another aztenant resource of
// the expected kind in the same namespace (name), or an Azure resource that
// aztenant does not manage (armId), where the tenant allows it.
//
// +kubebuilder:validation:XValidation:rule="has(self.name) != has(self.armId)",message="set exactly one of name and armId"
type OwnerReference struct {
	// Name of the owner in this namespace. Owners never cross namespaces.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// ARMID of an owner not managed by aztenant, such as
	// /subscriptions/.../resourceGroups/shared-rg.
	// +optional
	// +kubebuilder:validation:Pattern=`^/subscriptions/[^/]+(/.+)?$`
	// +kubebuilder:validation:MaxLength=1024
	ARMID string `json:"armId,omitempty"`
}

// SecretDestination is a key of a Secret in the resource's namespace that an
// output is written to. The Secret is created and owned by the resource; an
// existing Secret it does not own is never overwritten.
type SecretDestination struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key in the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// ConfigMapDestination is a key of a ConfigMap in the resource's namespace that
// an output is written to, with the same ownership rules as secrets.
type ConfigMapDestination struct {
	// Name of the ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key in the ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// DestinationExpression writes the result of a CEL expression to a key of a
// Secret or ConfigMap. The expression sees `self` (the resource, with status)
// and, for secrets, `secret` (the kind's secret outputs, such as keys).
type DestinationExpression struct {
	// Name of the Secret or ConfigMap, in this namespace, owned by the resource.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key in the destination. When empty, the expression must return a
	// map(string, string) whose entries become keys.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]*$`
	Key string `json:"key,omitempty"`
	// Value is a CEL expression.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Value string `json:"value"`
}

// OperatorExpressions are the CEL exports every kind supports.
type OperatorExpressions struct {
	// SecretExpressions write CEL results to Secrets; they may use `secret`
	// (the kind's secret outputs, such as keys) besides `self`.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	SecretExpressions []DestinationExpression `json:"secretExpressions,omitempty"`
	// ConfigMapExpressions write CEL results to ConfigMaps; they see only
	// `self`, never secrets.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	ConfigMapExpressions []DestinationExpression `json:"configMapExpressions,omitempty"`
}

// ResourceStatus is the part of status every Azure-backed kind has.
type ResourceStatus struct {
	// Conditions: Ready (True, False or Unknown with a reason such as
	// Succeeded, Reconciling, WaitingForOwner, IdentityNotFound,
	// TenantPolicyDenied, PolicyDenied, AlreadyExists, AuthorizationFailed,
	// InvalidSpec), Reconciling while work is in flight, and Stalled when only
	// a change of the spec can help.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ID is the resource's ARM ID once it exists in Azure.
	// +optional
	ID string `json:"id,omitempty"`
	// ProvisioningState as last reported by ARM.
	// +optional
	ProvisioningState string `json:"provisioningState,omitempty"`
	// ResumeToken resumes a long-running operation after an operator restart,
	// so nothing is created twice.
	// +optional
	ResumeToken string `json:"resumeToken,omitempty"`
	// Adopted is true when the resource existed in Azure before and was adopted
	// (aztenant.io/adopt); deleting it then detaches unless told otherwise.
	// Resources with tags carry the adopting (or creating) object's marker in
	// the tag aztenant.io/owner; another object cannot adopt them meanwhile.
	// +optional
	Adopted bool `json:"adopted,omitempty"`
	// WriteOnlyHash is a digest (HMAC-SHA256 keyed with the UIDs of the
	// Secrets they come from, which readers of this status need not see) of
	// the write-only properties last written to Azure, such as an
	// administrator password read from a Secret. ARM never returns them, so
	// this is how a change (a rotated password) is noticed: when it differs,
	// the resource is written again. It never holds the values themselves.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	WriteOnlyHash string `json:"writeOnlyHash,omitempty"`
	// ManagedTags are the names of the spec's tags last written to Azure. A
	// name that leaves the spec is removed from Azure; tags aztenant never
	// managed (set in the portal, by Azure Policy or by other tools) are kept
	// and are not drift.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=512
	ManagedTags []string `json:"managedTags,omitempty"`
	// Differences, while the object is observed (aztenant.io/reconcile-policy:
	// observe), are the paths where Azure differs from the spec, each with the
	// spec's value and Azure's, as the next write would change them (write-only
	// values are never shown). Switching to manage writes exactly these. Empty
	// when Azure matches, and when the object is not observed.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Differences []Difference `json:"differences,omitempty"`
	// SecretsRead records the last read of the secret outputs (keys,
	// passwords) exported to Secrets by spec.operatorSpec. Reading them is an
	// ARM action (a POST, such as listKeys, counted against the
	// subscription's write budget), so it is made again only when this
	// record no longer holds: the exports or the spec changed, a destination
	// Secret is missing or its exported keys were changed, the
	// aztenant.io/refresh-secrets annotation has a new value, or the secret
	// refresh period passed. It holds no secret value.
	// +optional
	SecretsRead *SecretsRead `json:"secretsRead,omitempty"`
	// AzureKeeps is how Azure answered the last write where its answer
	// differs from the spec: not written again until the spec changes there.
	// +optional
	AzureKeeps *AzureKeeps `json:"azureKeeps,omitempty"`
}

// AzureKeeps records Azure's answer to a write, as keyed digests.
type AzureKeeps struct {
	// APIVersion the answer was read with.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Written is the digest of a body written whose answer is not recorded yet.
	// +optional
	Written string `json:"written,omitempty"`
	// Paths Azure keeps its own way.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Paths []KeptPath `json:"paths,omitempty"`
}

// KeptPath is a path where Azure answered a write its own way.
type KeptPath struct {
	// Path, as in status.differences.
	// +kubebuilder:validation:MaxLength=512
	Path string `json:"path"`
	// Sent is the digest of the spec's value written.
	Sent string `json:"sent"`
	// Answered is the digest of Azure's value; empty: none.
	// +optional
	Answered string `json:"answered,omitempty"`
	// Value is Azure's, as JSON, cut; never for secret values.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Value string `json:"value,omitempty"`
}

// SecretsRead is when, and for which spec, the secret outputs were last read
// from Azure and written to their Secrets.
type SecretsRead struct {
	// Time of the read.
	Time metav1.Time `json:"time"`
	// Generation is the spec generation read for (secret expressions may use
	// the spec).
	// +optional
	Generation int64 `json:"generation,omitempty"`
	// ExportsHash is a SHA-256 digest of the Secret destinations and secret
	// expressions of spec.operatorSpec (names, keys and expressions, no
	// values).
	// +optional
	// +kubebuilder:validation:MaxLength=128
	ExportsHash string `json:"exportsHash,omitempty"`
	// Refresh is the value of the aztenant.io/refresh-secrets annotation
	// that read honoured.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Refresh string `json:"refresh,omitempty"`
}

// Difference is one path of the ARM resource where Azure differs from the spec.
type Difference struct {
	// Path in the ARM body, dotted ("properties.sku.name"); a list of named
	// elements is indexed by name ("properties.subnets[name=app]").
	// +kubebuilder:validation:MaxLength=1024
	Path string `json:"path"`
	// Desired is the spec's value, as JSON; "(absent)" when the spec has none.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Desired string `json:"desired,omitempty"`
	// Actual is Azure's value, as JSON; "(absent)" when Azure has none.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Actual string `json:"actual,omitempty"`
}

// Resource is what the generic reconciler needs from every Azure-backed kind.
// +kubebuilder:object:generate=false
type Resource interface {
	client.Object
	// AzureName is spec.azureName, defaulting to metadata.name.
	AzureName() string
	// Owner is spec.owner (nil for kinds without a parent, such as resource groups).
	Owner() *OwnerReference
	// AzureStatus is the common part of status, modified in place.
	AzureStatus() *ResourceStatus
	// Expressions are the CEL exports of spec.operatorSpec, if any.
	Expressions() *OperatorExpressions
}
