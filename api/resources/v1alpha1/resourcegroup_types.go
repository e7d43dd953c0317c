package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// ResourceGroupGroupKind is the group and kind of ResourceGroup, which other
// kinds name as their owner.
var ResourceGroupGroupKind = schema.GroupKind{Group: GroupVersion.Group, Kind: "ResourceGroup"}

// ResourceGroupSpec is the desired state of an Azure resource group. Its parent
// is the subscription of the namespace's Identity, so it has no owner.
type ResourceGroupSpec struct {
	// AzureName is the resource group's name in Azure: 1 to 90 letters, digits,
	// '-', '_', '.', '(' or ')', not ending in '.'. It defaults to
	// metadata.name and cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=90
	// +kubebuilder:validation:Pattern=`^[-\w\._\(\)]*[-\w_\(\)]$`
	AzureName string `json:"azureName,omitempty"`

	// Location is the Azure region of the group's metadata, such as westeurope.
	// It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable: Azure cannot move a resource group to another region"
	Location azurev1alpha1.Location `json:"location"`

	// Tags are Azure resource tags: at most 50, names up to 512 characters,
	// values up to 256.
	// +optional
	// +kubebuilder:validation:MaxProperties=50
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 512 && size(self[k]) <= 256)",message="tag names are at most 512 characters and values at most 256"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().startsWith('aztenant.io-') && !k.lowerAscii().startsWith('aztenant.io/'))",message="tags beginning with aztenant.io- are reserved for the operator"
	Tags map[string]string `json:"tags,omitempty"`

	// OperatorSpec says what the operator exports besides the resource itself.
	// +optional
	OperatorSpec *ResourceGroupOperatorSpec `json:"operatorSpec,omitempty"`
}

// ResourceGroupOperatorSpec holds the CEL exports of a ResourceGroup.
type ResourceGroupOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`
}

// ResourceGroupStatus is the observed state of a resource group.
type ResourceGroupStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`

	// Location reported by Azure.
	// +optional
	Location string `json:"location,omitempty"`
}

// ResourceGroup is an Azure resource group (Microsoft.Resources/resourceGroups)
// in the subscription of the namespace's Identity. Deleting it deletes
// everything in it in Azure, unless the reconcile policy says otherwise.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || size(self.metadata.name) <= 90",message="metadata.name is longer than a resource group name may be (90): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type ResourceGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ResourceGroupSpec   `json:"spec"`
	Status ResourceGroupStatus `json:"status,omitempty"`
}

// ResourceGroupList is a list of ResourceGroup.
//
// +kubebuilder:object:root=true
type ResourceGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceGroup `json:"items"`
}

var _ azurev1alpha1.Resource = &ResourceGroup{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *ResourceGroup) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is nil: a resource group's parent is the subscription.
func (x *ResourceGroup) Owner() *azurev1alpha1.OwnerReference { return nil }

// OwnerGroupKind is the zero value: a resource group has no owner kind.
func (x *ResourceGroup) OwnerGroupKind() schema.GroupKind { return schema.GroupKind{} }

// AzureStatus is the common part of the status.
func (x *ResourceGroup) AzureStatus() *azurev1alpha1.ResourceStatus { return &x.Status.ResourceStatus }

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *ResourceGroup) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
