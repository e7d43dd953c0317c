package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IdentitySpec binds a ServiceAccount of this namespace to an Azure identity
// (user-assigned managed identity or app registration) whose federated identity
// credential trusts that ServiceAccount.
type IdentitySpec struct {
	// ServiceAccountName names a ServiceAccount in this Identity's own namespace.
	// The operator requests short-lived tokens for it (audience
	// api://AzureADTokenExchange) and exchanges them with Entra ID. A ServiceAccount
	// of another namespace cannot be named. The operator exchanges only
	// aztenant-provisioner, the account admission reserves for it (nobody else
	// may get a token for it or run a pod as it); an Identity naming another
	// account is refused with ServiceAccountNotReserved unless the operator runs
	// with --insecure-allow-unreserved-service-accounts.
	// +optional
	// +kubebuilder:default=aztenant-provisioner
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// ClientID is the Azure identity's client (application) ID. When empty, it is
	// read from the ServiceAccount's azure.workload.identity/client-id annotation.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$`
	ClientID string `json:"clientID,omitempty"`

	// TenantID is the Entra ID tenant of the identity. When empty, it is read from
	// the ServiceAccount's azure.workload.identity/tenant-id annotation.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$`
	TenantID string `json:"tenantID,omitempty"`

	// SubscriptionID is the Azure subscription that resources using this Identity
	// live in. ARM IDs outside it are refused before any call to Azure.
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$`
	SubscriptionID string `json:"subscriptionID"`
}

// IdentityStatus reports whether the identity's token exchange works.
type IdentityStatus struct {
	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready is True after a successful token exchange; its reason says
	// what is missing otherwise (ServiceAccountNotFound, MissingClientID,
	// MissingTenantID, FederationRejected).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ClientID and TenantID in effect, after defaulting from the ServiceAccount.
	// +optional
	ClientID string `json:"clientID,omitempty"`
	// +optional
	TenantID string `json:"tenantID,omitempty"`

	// PrincipalID is the object ID of the Azure principal, once known.
	// +optional
	PrincipalID string `json:"principalID,omitempty"`

	// LastExchangeTime is when a token was last obtained from Entra ID.
	// +optional
	LastExchangeTime *metav1.Time `json:"lastExchangeTime,omitempty"`
}

// Identity binds a ServiceAccount of its namespace to an Azure identity. The
// Identity named "default" serves every resource of the namespace; the annotation
// aztenant.io/identity selects another one of the same namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant,shortName=azidentity
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="ServiceAccount",type=string,JSONPath=`.spec.serviceAccountName`
// +kubebuilder:printcolumn:name="Principal",type=string,JSONPath=`.status.principalID`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Identity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   IdentitySpec   `json:"spec"`
	Status IdentityStatus `json:"status,omitempty"`
}

// IdentityList is a list of Identity.
//
// +kubebuilder:object:root=true
type IdentityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Identity `json:"items"`
}
