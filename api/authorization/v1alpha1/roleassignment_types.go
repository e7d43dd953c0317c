package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/aztenant/aztenant/api/authorization/roles"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// WellKnownRoleDefinitions maps the built-in role names that
// roleDefinitionReference.wellKnownName accepts to their role definition IDs,
// which are the same in every Azure subscription: every role of the table in
// package roles, which checks each GUID against Microsoft's published list.
// The reconciler turns a name into
// /subscriptions/<subscription>/providers/Microsoft.Authorization/roleDefinitions/<id>.
var WellKnownRoleDefinitions = roles.NameToID()

// RoleAssignmentSpec is the desired state of an Azure role assignment: which
// principal gets which role at which scope (the owner).
//
// +kubebuilder:validation:XValidation:rule="has(self.principalId) != has(self.principalIdFromConfig)",message="set exactly one of principalId and principalIdFromConfig"
// +kubebuilder:validation:XValidation:rule="has(self.principalId) == has(oldSelf.principalId)",message="cannot switch between principalId and principalIdFromConfig: Azure cannot change a role assignment's principal; create a new one"
// +kubebuilder:validation:XValidation:rule="!has(self.conditionVersion) || has(self.condition)",message="conditionVersion needs condition"
type RoleAssignmentSpec struct {
	// AzureName is the role assignment's name in Azure, which must be a GUID.
	// When empty, the reconciler derives a GUID deterministically from the
	// object's namespace, name and scope, so retries and restarts never create
	// a second assignment. Once set it cannot change.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$`
	// +kubebuilder:validation:MaxLength=36
	AzureName string `json:"azureName,omitempty"`

	// Owner is the scope of the assignment: an aztenant resource of this
	// namespace by name (a ResourceGroup unless group and kind say otherwise),
	// or any Azure scope by armId (a subscription, resource group or
	// resource). Tenancy guards check that the scope lies in the namespace's
	// subscription and allowed resource groups. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: Azure cannot move a role assignment to another scope"
	Owner *RoleAssignmentOwner `json:"owner"`

	// PrincipalId is the object ID of the user, group or service principal
	// (such as a managed identity's principalId) that gets the role. It
	// cannot change.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$`
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="principalId is immutable: Azure cannot change a role assignment's principal; create a new one"
	PrincipalID string `json:"principalId,omitempty"`

	// PrincipalIdFromConfig reads the principal's object ID from a ConfigMap
	// key in this namespace, such as one a UserAssignedIdentity's
	// operatorSpec.configMaps.principalId writes. It cannot change.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="principalIdFromConfig is immutable: Azure cannot change a role assignment's principal; create a new one"
	PrincipalIDFromConfig *ConfigMapReference `json:"principalIdFromConfig,omitempty"`

	// PrincipalType is the type of the principal. Setting it avoids failures
	// when a new service principal has not replicated through Entra ID yet.
	// +optional
	// +kubebuilder:validation:Enum=ServicePrincipal;User;Group
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="principalType is immutable"
	PrincipalType string `json:"principalType,omitempty"`

	// RoleDefinitionReference is the role to grant. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="roleDefinitionReference is immutable: Azure cannot change a role assignment's role; create a new one"
	RoleDefinitionReference RoleDefinitionReference `json:"roleDefinitionReference"`

	// Description of why the assignment exists.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Description string `json:"description,omitempty"`

	// Condition is an ABAC condition limiting the assignment, in Azure's
	// condition language.
	// +optional
	// +kubebuilder:validation:MaxLength=8192
	Condition string `json:"condition,omitempty"`

	// ConditionVersion is the version of the condition language; Azure accepts
	// 2.0.
	// +optional
	// +kubebuilder:validation:Enum="2.0"
	ConditionVersion string `json:"conditionVersion,omitempty"`

	// OperatorSpec holds CEL exports, if any.
	// +optional
	OperatorSpec *RoleAssignmentOperatorSpec `json:"operatorSpec,omitempty"`
}

// RoleAssignmentOwner is the scope of a role assignment, in the shape of ASO's
// arbitrary owner reference: either name (with group and kind of any aztenant
// Azure kind, ResourceGroup when omitted) or armId. A manifest from ASO ports by
// changing apiVersion and, when it names its owner, owner.group from
// <group>.azure.com to <group>.aztenant.io.
//
// +kubebuilder:validation:XValidation:rule="has(self.name) != has(self.armId)",message="set exactly one of name and armId"
// +kubebuilder:validation:XValidation:rule="has(self.group) == has(self.kind)",message="set group and kind together"
// +kubebuilder:validation:XValidation:rule="!has(self.armId) || !has(self.group)",message="group and kind go with name, not armId"
type RoleAssignmentOwner struct {
	// Name of the owner in this namespace. Owners never cross namespaces.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// Group of the named owner's kind, such as storage.aztenant.io. Defaults to
	// resources.aztenant.io.
	// +optional
	// +kubebuilder:validation:Enum=resources.aztenant.io;managedidentity.aztenant.io;storage.aztenant.io;cache.aztenant.io;dbforpostgresql.aztenant.io;containerservice.aztenant.io
	Group string `json:"group,omitempty"`

	// Kind of the named owner, such as StorageAccount. Defaults to
	// ResourceGroup.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
	Kind string `json:"kind,omitempty"`

	// ARMID of a scope not managed by aztenant: a subscription
	// (/subscriptions/<id>), a resource group or a resource.
	// +optional
	// +kubebuilder:validation:Pattern=`^/subscriptions/[^/]+(/.+)?$`
	// +kubebuilder:validation:MaxLength=1024
	ARMID string `json:"armId,omitempty"`
}

// GroupKind is the kind owner.name refers to: group and kind when set,
// ResourceGroup otherwise. It is the zero value when the owner is an armId.
func (o *RoleAssignmentOwner) GroupKind() schema.GroupKind {
	switch {
	case o == nil || o.Name == "":
		return schema.GroupKind{}
	case o.Group != "" || o.Kind != "":
		return schema.GroupKind{Group: o.Group, Kind: o.Kind}
	default:
		return resourcesv1alpha1.ResourceGroupGroupKind
	}
}

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

// ConfigMapReference is a key of a ConfigMap in the resource's own namespace.
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

// RoleAssignmentOperatorSpec holds the CEL exports of a RoleAssignment.
type RoleAssignmentOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`
}

// RoleAssignmentStatus is the observed state of the role assignment.
type RoleAssignmentStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`

	// Scope the assignment applies to, as reported by Azure.
	// +optional
	Scope string `json:"scope,omitempty"`
	// RoleDefinitionId is the full ID of the granted role definition.
	// +optional
	RoleDefinitionID string `json:"roleDefinitionId,omitempty"`
	// PrincipalId in effect (after reading principalIdFromConfig).
	// +optional
	PrincipalID string `json:"principalId,omitempty"`
}

// RoleAssignment grants a principal an Azure role at a scope
// (Microsoft.Authorization/roleAssignments). Azure cannot change an
// assignment's scope, principal or role: those fields are immutable here, and
// a different grant is a new RoleAssignment. Tags are not supported by Azure on
// this type.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.azureName) || (has(self.spec.azureName) && self.spec.azureName == oldSelf.spec.azureName)",message="azureName is immutable once set: it names the role assignment in Azure"
type RoleAssignment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RoleAssignmentSpec   `json:"spec"`
	Status RoleAssignmentStatus `json:"status,omitempty"`
}

// RoleAssignmentList is a list of RoleAssignment.
//
// +kubebuilder:object:root=true
type RoleAssignmentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RoleAssignment `json:"items"`
}

var _ azurev1alpha1.Resource = &RoleAssignment{}

// AzureName is spec.azureName. Unlike other kinds it does not default to
// metadata.name (Azure requires a GUID): when empty, the reconciler derives
// one.
func (x *RoleAssignment) AzureName() string { return x.Spec.AzureName }

// Owner is the scope as an OwnerReference (name or armId); OwnerGroupKind says
// which kind a name refers to.
func (x *RoleAssignment) Owner() *azurev1alpha1.OwnerReference {
	if x.Spec.Owner == nil {
		return nil
	}
	return &azurev1alpha1.OwnerReference{Name: x.Spec.Owner.Name, ARMID: x.Spec.Owner.ARMID}
}

// OwnerGroupKind is the kind spec.owner.name refers to (see
// RoleAssignmentOwner.GroupKind). Unlike other kinds it depends on the object.
func (x *RoleAssignment) OwnerGroupKind() schema.GroupKind { return x.Spec.Owner.GroupKind() }

// AzureStatus is the common part of the status.
func (x *RoleAssignment) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *RoleAssignment) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
