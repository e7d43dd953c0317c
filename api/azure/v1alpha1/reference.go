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

// UserAssignedIdentityDetails is one user-assigned identity a resource runs as: an entry of
// ARM's identity.userAssignedIdentities, a map keyed by the identity's ARM ID with empty
// objects as values, held as a list of references as ASO spells it
// (userAssignedIdentities: [{reference: {armId}}]).
type UserAssignedIdentityDetails struct {
	// Reference names the identity.
	Reference UserAssignedIdentityReference `json:"reference"`
}

// UserAssignedIdentityReference names a user-assigned identity by ARM ID, or by name: an
// object of this namespace, a UserAssignedIdentity (managedidentity.aztenant.io) unless
// group and kind say otherwise, whose ARM ID the operator puts in its place.
//
// +kubebuilder:validation:XValidation:rule="has(self.armId) != has(self.name)",message="set exactly one of armId and name"
type UserAssignedIdentityReference struct {
	// ARMID of a user-assigned identity aztenant does not manage.
	// +optional
	// +kubebuilder:validation:Pattern=`^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.ManagedIdentity/userAssignedIdentities/[^/]+$`
	// +kubebuilder:validation:MaxLength=1024
	ARMID string `json:"armId,omitempty"`
	// Group of the object; managedidentity.aztenant.io by default.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group,omitempty"`
	// Kind of the object; UserAssignedIdentity by default.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind,omitempty"`
	// Name of the object in this namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
}

// UserAssignedIdentityNameDetails is one user-assigned identity a resource runs as, by ARM
// ID or by the name of a UserAssignedIdentity of the namespace, without the group and kind
// of UserAssignedIdentityDetails: the shape of the kinds written by hand before they moved
// onto the generator (api/kinds.yaml, identityReference: nameOrArmId).
type UserAssignedIdentityNameDetails struct {
	// Reference is the identity: a UserAssignedIdentity of this namespace (name) or an
	// existing identity's ARM ID (armId).
	Reference UserAssignedIdentityNameReference `json:"reference"`
}

// UserAssignedIdentityNameReference names a user-assigned identity by name (a
// UserAssignedIdentity of this namespace) or ARM ID.
//
// +kubebuilder:validation:XValidation:rule="has(self.name) != has(self.armId)",message="set exactly one of name and armId"
type UserAssignedIdentityNameReference struct {
	// Name of a UserAssignedIdentity in this namespace.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
	// ARMID of a user-assigned identity.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.ManagedIdentity/userAssignedIdentities/[^/]+$`
	ARMID string `json:"armId,omitempty"`
}

// ConfigMapReference is a key of a ConfigMap in the resource's own namespace, from which a
// spec reads a value (a <name>FromConfig field beside <name>, as ASO's importConfigMapMode:
// a role assignment's principalIdFromConfig reads the principalId a UserAssignedIdentity
// exported).
type ConfigMapReference struct {
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
