package v1alpha1

// ResourceReference is another Azure resource a spec refers to: its ARM ID (armId), or an
// aztenant object of the same namespace (kind and name, group defaulting to the referring
// object's), whose ARM ID the operator uses once the object exists in Azure; until then
// the referring object waits with reason ReferenceNotFound. References never cross
// namespaces.
//
// +kubebuilder:validation:XValidation:rule="has(self.armId) != has(self.name)",message="set exactly one of armId and name"
// +kubebuilder:validation:XValidation:rule="!has(self.name) || has(self.kind)",message="a reference by name needs its kind"
type ResourceReference struct {
	// ARMID of a resource aztenant does not manage, such as
	// /subscriptions/.../resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/nsg.
	// +optional
	// +kubebuilder:validation:Pattern=`^/subscriptions/[^/]+(/.+)?$`
	// +kubebuilder:validation:MaxLength=1024
	ARMID string `json:"armId,omitempty"`
	// Group of the object, such as network.aztenant.io; the referring object's by default.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group,omitempty"`
	// Kind of the object, such as NetworkSecurityGroup.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind,omitempty"`
	// Name of the object in this namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
}
