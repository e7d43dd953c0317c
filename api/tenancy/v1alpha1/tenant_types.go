package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantSpec selects namespaces and bounds what their resources may touch in
// Azure. Only the platform team can write it: it is cluster-scoped.
//
// +kubebuilder:validation:XValidation:rule="(has(self.namespaces) && size(self.namespaces) > 0) || has(self.namespaceSelector)",message="select namespaces by name (namespaces) or by label (namespaceSelector)"
type TenantSpec struct {
	// Namespaces selects namespaces by name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:items:MaxLength=63
	Namespaces []string `json:"namespaces,omitempty"`

	// NamespaceSelector selects namespaces by label, in addition to Namespaces.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// Subscriptions the tenant's resources may live in.
	// +kubebuilder:validation:MinItems=1
	// +listType=set
	// +kubebuilder:validation:items:Pattern=`^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$`
	Subscriptions []string `json:"subscriptions"`

	// ResourceGroups are the resource-group names the tenant's resources may live
	// in, as shell patterns matched case-insensitively ("team-a-*"). "*" allows any.
	// +kubebuilder:validation:MinItems=1
	// +listType=set
	ResourceGroups []string `json:"resourceGroups"`

	// Locations the tenant may create resources in (ARM names such as "westeurope").
	// Empty allows any.
	// +optional
	// +listType=set
	Locations []string `json:"locations,omitempty"`

	// Kinds the tenant may use, as Kind or Kind.group ("StorageAccount",
	// "RoleAssignment.authorization.aztenant.io"). Empty allows any.
	// +optional
	// +listType=set
	Kinds []string `json:"kinds,omitempty"`

	// Weight is the tenant's share of the operator's reconcile throughput relative
	// to other tenants: with weights 2 and 1, the first gets two turns for one.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight int32 `json:"weight,omitempty"`
}

// TenantStatus reports which namespaces the Tenant currently selects.
type TenantStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready is False when the spec cannot be applied, for instance a
	// namespace selected by two Tenants (reason NamespaceConflict).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Namespaces currently selected, sorted.
	// +optional
	Namespaces []string `json:"namespaces,omitempty"`
}

// Tenant is a team's allowance in Azure: which namespaces belong to it and what
// their resources may touch. Which namespaces the operator serves at all follows
// the Tenants (unless an operator flag says otherwise).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories=aztenant
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Namespaces",type=string,JSONPath=`.status.namespaces`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSpec   `json:"spec"`
	Status TenantStatus `json:"status,omitempty"`
}

// TenantList is a list of Tenant.
//
// +kubebuilder:object:root=true
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tenant `json:"items"`
}
