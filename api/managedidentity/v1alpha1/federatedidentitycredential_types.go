package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// MaxFederatedIdentityCredentialsPerIdentity is Azure's limit on federated
// identity credentials of one user-assigned identity. The API server cannot
// count siblings, so the limit is enforced by Azure (and the emulator), which
// refuses the 21st.
const MaxFederatedIdentityCredentialsPerIdentity = 20

// FederatedIdentityCredentialSpec is the desired state of a federated identity
// credential: which external tokens (issuer, subject, audience) Entra ID
// exchanges for tokens of the owning identity.
type FederatedIdentityCredentialSpec struct {
	// AzureName is the credential's name in Azure: 3 to 120 letters, digits,
	// '-' or '_', starting with a letter or digit. It defaults to
	// metadata.name and cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=120
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9][-_a-zA-Z0-9]*$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the user-assigned identity the credential belongs to: a
	// UserAssignedIdentity of this namespace (name) or an existing identity's
	// ARM ID (armId). It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft.ManagedIdentity/userAssignedIdentities/[^/]+$')",message="owner.armId must be a user-assigned identity ID"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// Issuer is the URL of the token issuer to trust, such as a Kubernetes
	// cluster's service-account issuer. It must use https.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=600
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() == 'https'",message="issuer must be an https URL"
	Issuer string `json:"issuer"`

	// Subject is the subject claim to trust exactly, such as
	// system:serviceaccount:<namespace>:<serviceaccount>.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=600
	Subject string `json:"subject"`

	// Audiences is the audience claim to trust. Azure accepts exactly one; the
	// default is api://AzureADTokenExchange.
	// +optional
	// +kubebuilder:default={"api://AzureADTokenExchange"}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=600
	Audiences []string `json:"audiences,omitempty"`

	// OperatorSpec holds CEL exports, if any.
	// +optional
	OperatorSpec *FederatedIdentityCredentialOperatorSpec `json:"operatorSpec,omitempty"`
}

// FederatedIdentityCredentialOperatorSpec holds the CEL exports of a
// FederatedIdentityCredential.
type FederatedIdentityCredentialOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`
}

// FederatedIdentityCredentialStatus is the observed state of the credential.
type FederatedIdentityCredentialStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`
}

// FederatedIdentityCredential lets Entra ID exchange tokens of an external
// issuer for tokens of a user-assigned identity
// (Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials).
//
// Azure allows at most 20 federated identity credentials per identity and
// refuses concurrent writes of credentials of the same identity; the
// reconciler serialises them, and Azure (and the emulator) refuse the 21st
// with an error shown in the Ready condition. One identity per namespace, with
// a credential per ServiceAccount that uses it, stays well inside the limit.
// Tags are not supported by Azure on this type.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || (size(self.metadata.name) >= 3 && size(self.metadata.name) <= 120 && self.metadata.name.matches('^[a-z0-9][-a-z0-9]*$'))",message="metadata.name is not a valid federated identity credential name (3-120 letters, digits, '-' or '_'): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type FederatedIdentityCredential struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FederatedIdentityCredentialSpec   `json:"spec"`
	Status FederatedIdentityCredentialStatus `json:"status,omitempty"`
}

// FederatedIdentityCredentialList is a list of FederatedIdentityCredential.
//
// +kubebuilder:object:root=true
type FederatedIdentityCredentialList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FederatedIdentityCredential `json:"items"`
}

var _ azurev1alpha1.Resource = &FederatedIdentityCredential{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *FederatedIdentityCredential) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the user-assigned identity.
func (x *FederatedIdentityCredential) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }

// OwnerGroupKind is UserAssignedIdentity: the kind spec.owner.name refers to.
func (x *FederatedIdentityCredential) OwnerGroupKind() schema.GroupKind {
	return UserAssignedIdentityGroupKind
}

// AzureStatus is the common part of the status.
func (x *FederatedIdentityCredential) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *FederatedIdentityCredential) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
