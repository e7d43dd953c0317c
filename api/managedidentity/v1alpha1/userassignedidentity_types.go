package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// UserAssignedIdentityGroupKind is the group and kind of UserAssignedIdentity,
// the owner of a FederatedIdentityCredential.
var UserAssignedIdentityGroupKind = schema.GroupKind{Group: GroupVersion.Group, Kind: "UserAssignedIdentity"}

// UserAssignedIdentitySpec is the desired state of a user-assigned managed
// identity.
type UserAssignedIdentitySpec struct {
	// AzureName is the identity's name in Azure: 3 to 128 letters, digits, '-'
	// or '_', starting with a letter or digit. It defaults to metadata.name and
	// cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9][-_a-zA-Z0-9]*$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the resource group the identity lives in: a ResourceGroup of
	// this namespace (name) or an existing resource group's ARM ID (armId). It
	// cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+$')",message="owner.armId must be a resource group ID: /subscriptions/<id>/resourceGroups/<name>"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// Location is the Azure region, such as westeurope. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable: Azure cannot move an identity to another region"
	Location azurev1alpha1.Location `json:"location"`

	// Tags are Azure resource tags: at most 50, names up to 512 characters,
	// values up to 256.
	// +optional
	// +kubebuilder:validation:MaxProperties=50
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 512 && size(self[k]) <= 256)",message="tag names are at most 512 characters and values at most 256"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().startsWith('aztenant.io-') && !k.lowerAscii().startsWith('aztenant.io/'))",message="tags beginning with aztenant.io- are reserved for the operator"
	Tags map[string]string `json:"tags,omitempty"`

	// OperatorSpec says where the operator writes the identity's IDs.
	// +optional
	OperatorSpec *UserAssignedIdentityOperatorSpec `json:"operatorSpec,omitempty"`
}

// UserAssignedIdentityOperatorSpec says where the identity's outputs go.
type UserAssignedIdentityOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`

	// ConfigMaps receive the identity's IDs, which are not secret.
	// +optional
	ConfigMaps *UserAssignedIdentityOperatorConfigMaps `json:"configMaps,omitempty"`
}

// UserAssignedIdentityOperatorConfigMaps are the ConfigMap keys the identity's
// IDs are written to, for instance to annotate a ServiceAccount or to feed a
// RoleAssignment's principalIdFromConfig.
type UserAssignedIdentityOperatorConfigMaps struct {
	// ClientID is the identity's client (application) ID.
	// +optional
	ClientID *azurev1alpha1.ConfigMapDestination `json:"clientId,omitempty"`
	// PrincipalID is the object ID of the identity's service principal.
	// +optional
	PrincipalID *azurev1alpha1.ConfigMapDestination `json:"principalId,omitempty"`
	// TenantID is the Entra ID tenant of the identity.
	// +optional
	TenantID *azurev1alpha1.ConfigMapDestination `json:"tenantId,omitempty"`
}

// UserAssignedIdentityStatus is the observed state of the identity.
type UserAssignedIdentityStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`

	// ClientID is the identity's client (application) ID.
	// +optional
	ClientID string `json:"clientId,omitempty"`
	// PrincipalID is the object ID of the identity's service principal, the
	// principalId of role assignments granting it access.
	// +optional
	PrincipalID string `json:"principalId,omitempty"`
	// TenantID is the Entra ID tenant of the identity.
	// +optional
	TenantID string `json:"tenantId,omitempty"`
}

// UserAssignedIdentity is a user-assigned managed identity
// (Microsoft.ManagedIdentity/userAssignedIdentities) in a resource group.
// Workloads use it through FederatedIdentityCredentials; access is granted
// with RoleAssignments naming its principalId.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || (size(self.metadata.name) >= 3 && size(self.metadata.name) <= 128 && self.metadata.name.matches('^[a-z0-9][-a-z0-9]*$'))",message="metadata.name is not a valid identity name (3-128 letters, digits, '-' or '_'): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type UserAssignedIdentity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   UserAssignedIdentitySpec   `json:"spec"`
	Status UserAssignedIdentityStatus `json:"status,omitempty"`
}

// UserAssignedIdentityList is a list of UserAssignedIdentity.
//
// +kubebuilder:object:root=true
type UserAssignedIdentityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []UserAssignedIdentity `json:"items"`
}

var _ azurev1alpha1.Resource = &UserAssignedIdentity{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *UserAssignedIdentity) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the resource group.
func (x *UserAssignedIdentity) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }

// OwnerGroupKind is ResourceGroup: the kind spec.owner.name refers to.
func (x *UserAssignedIdentity) OwnerGroupKind() schema.GroupKind {
	return resourcesv1alpha1.ResourceGroupGroupKind
}

// AzureStatus is the common part of the status.
func (x *UserAssignedIdentity) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *UserAssignedIdentity) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
