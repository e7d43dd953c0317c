package v1alpha1

import "github.com/aztenant/aztenant/api/authorization/roles"

// The parts of the RoleAssignment API (zz_generated_roleassignment.go) that are not
// Azure's body: Azure takes properties.roleDefinitionId, an ARM ID; aztenant, as ASO,
// takes a role by its ARM ID or by a built-in role's well-known name, which the
// RoleAssignment overlay (reconcilers/kinds/roleassignment_overlay.go) turns into that ID
// (api/kinds.yaml: referenceType).

// WellKnownRoleDefinitions maps the built-in role names that
// roleDefinitionReference.wellKnownName accepts to their role definition IDs,
// which are the same in every Azure subscription: every role of the table in
// package roles, which checks each GUID against Microsoft's published list.
// The reconciler turns a name into
// /subscriptions/<subscription>/providers/Microsoft.Authorization/roleDefinitions/<id>.
var WellKnownRoleDefinitions = roles.NameToID()

// RoleDefinitionReference names the role to grant: a role definition's ARM ID
// (built-in or custom) or a built-in role by name.
//
// +kubebuilder:validation:XValidation:rule="has(self.armId) != has(self.wellKnownName)",message="set exactly one of armId and wellKnownName"
type RoleDefinitionReference struct {
	// ARMID of the role definition, such as
	// /subscriptions/<id>/providers/Microsoft.Authorization/roleDefinitions/<guid>
	// (the subscription part may be omitted for built-in roles). A role that
	// is not built in (a custom role) is read from ARM with the namespace's
	// own identity before the assignment is written, and refused
	// (PolicyDenied) when its actions are privileged.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^(?i)(/subscriptions/[^/]+)?/providers/Microsoft\.Authorization/roleDefinitions/[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$`
	ARMID string `json:"armId,omitempty"`

	// WellKnownName is a built-in role by name. The policy library refuses,
	// unless the constraint allows them, the roles that package
	// api/authorization/roles marks privileged by their actions (those that
	// can assign roles or act as other principals: Owner, User Access
	// Administrator, Role Based Access Control Administrator, Managed Identity
	// Operator, Key Vault Administrator, the AKS cluster admin roles, Virtual
	// Machine Contributor ...), and Contributor at subscription scope.
	// +optional
	// +kubebuilder:validation:Enum=Owner;Contributor;"Role Based Access Control Administrator";"User Access Administrator";Reader;"Managed Identity Contributor";"Managed Identity Operator";"Key Vault Administrator";"Key Vault Contributor";"Key Vault Data Access Administrator";"Key Vault Secrets Officer";"Key Vault Secrets User";AcrPull;"Azure Kubernetes Service Cluster Admin Role";"Azure Kubernetes Service Cluster User Role";"Azure Kubernetes Service Contributor Role";"Azure Kubernetes Service RBAC Admin";"Azure Kubernetes Service RBAC Cluster Admin";"Azure Kubernetes Service RBAC Reader";"Azure Kubernetes Service RBAC Writer";"Virtual Machine Contributor";"Storage Account Contributor";"Storage Blob Data Contributor";"Storage Blob Data Owner";"Storage Blob Data Reader";"Network Contributor"
	WellKnownName string `json:"wellKnownName,omitempty"`
}
