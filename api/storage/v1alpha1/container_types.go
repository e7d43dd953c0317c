package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// StorageAccountsBlobServicesContainerSpec is the desired state of a blob
// container.
type StorageAccountsBlobServicesContainerSpec struct {
	// AzureName is the container's name in Azure: 3 to 63 lowercase letters,
	// digits and single hyphens, starting and ending with a letter or digit,
	// or one of the special containers $root and $web. It defaults to
	// metadata.name and cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^([a-z0-9](-?[a-z0-9])+|\$root|\$web)$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the storage account: a StorageAccount of this namespace (name)
	// or an existing account's ARM ID (armId). The account's default blob
	// service (blobServices/default), the container's actual parent in ARM, is
	// implied. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft.Storage/storageAccounts/[^/]+$')",message="owner.armId must be a storage account ID"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// PublicAccess says whether anonymous clients may read: None, Blob (blobs
	// only) or Container (blobs and listing). Anything but None needs the
	// account's allowBlobPublicAccess.
	// +optional
	// +kubebuilder:validation:Enum=None;Blob;Container
	PublicAccess string `json:"publicAccess,omitempty"`

	// Metadata are name-value pairs stored with the container (at most 64).
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^[A-Za-z_][A-Za-z0-9_]{0,255}$'))",message="metadata names must be C# identifiers (letters, digits, '_', not starting with a digit)"
	Metadata map[string]string `json:"metadata,omitempty"`

	// OperatorSpec holds CEL exports, if any.
	// +optional
	OperatorSpec *StorageAccountsBlobServicesContainerOperatorSpec `json:"operatorSpec,omitempty"`
}

// StorageAccountsBlobServicesContainerOperatorSpec holds the CEL exports of a
// container.
type StorageAccountsBlobServicesContainerOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`
}

// StorageAccountsBlobServicesContainerStatus is the observed state of the
// container.
type StorageAccountsBlobServicesContainerStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`

	// HasImmutabilityPolicy is true when an immutability policy is set.
	// +optional
	HasImmutabilityPolicy *bool `json:"hasImmutabilityPolicy,omitempty"`
	// HasLegalHold is true when the container has a legal hold.
	// +optional
	HasLegalHold *bool `json:"hasLegalHold,omitempty"`
}

// StorageAccountsBlobServicesContainer is a blob container of a storage
// account
// (Microsoft.Storage/storageAccounts/blobServices/containers). Tags are not
// supported by Azure on this type; use metadata.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || (size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z0-9](-?[a-z0-9])+$'))",message="metadata.name is not a valid container name (3-63 lowercase letters, digits and single hyphens): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type StorageAccountsBlobServicesContainer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StorageAccountsBlobServicesContainerSpec   `json:"spec"`
	Status StorageAccountsBlobServicesContainerStatus `json:"status,omitempty"`
}

// StorageAccountsBlobServicesContainerList is a list of
// StorageAccountsBlobServicesContainer.
//
// +kubebuilder:object:root=true
type StorageAccountsBlobServicesContainerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StorageAccountsBlobServicesContainer `json:"items"`
}

var _ azurev1alpha1.Resource = &StorageAccountsBlobServicesContainer{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *StorageAccountsBlobServicesContainer) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the storage account.
func (x *StorageAccountsBlobServicesContainer) Owner() *azurev1alpha1.OwnerReference {
	return x.Spec.Owner
}

// OwnerGroupKind is StorageAccount: the kind spec.owner.name refers to.
func (x *StorageAccountsBlobServicesContainer) OwnerGroupKind() schema.GroupKind {
	return StorageAccountGroupKind
}

// AzureStatus is the common part of the status.
func (x *StorageAccountsBlobServicesContainer) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *StorageAccountsBlobServicesContainer) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
