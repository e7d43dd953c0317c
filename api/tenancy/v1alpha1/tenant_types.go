package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// TenantSpec selects namespaces and bounds what their resources may touch in
// Azure. Only the platform team can write it: it is cluster-scoped.
//
// +kubebuilder:validation:XValidation:rule="(has(self.namespaces) && size(self.namespaces) > 0) || has(self.namespaceSelector)",message="select namespaces by name (namespaces) or by label (namespaceSelector)"
// +kubebuilder:validation:XValidation:rule="!has(self.onboarding) || !has(self.onboarding.subscription) || self.onboarding.subscription in self.subscriptions",message="onboarding.subscription must be one of subscriptions"
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

	// Locations the tenant may create resources in (ARM names such as
	// "westeurope", or display names such as "West Europe"). Empty allows any.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	Locations []azurev1alpha1.Location `json:"locations,omitempty"`

	// Kinds the tenant may use. Each entry is one of:
	//   - "Kind": that kind, in any group ("StorageAccount");
	//   - "Kind.group": that kind of that group
	//     ("RoleAssignment.authorization.aztenant.io");
	//   - "group/Kind", with the globs * (any run of characters) and ? (one
	//     character) in either part, as the Helm chart's crds.pattern:
	//     "network.aztenant.io/*" (every kind of a group),
	//     "dbforpostgresql.aztenant.io/FlexibleServer*", "*/Vault".
	// Matching is case-insensitive. A group's kinds are written
	// "group/*" ("*.group" is refused). Empty allows any kind. Where the
	// operator installs kinds as Tenants use them (--crd-management=tenants),
	// the kinds listed here are installed; an empty list names none.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=200
	// +kubebuilder:validation:items:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^[A-Za-z][A-Za-z0-9]*([.][A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$') || k.matches('^[-A-Za-z0-9.*?]+/[A-Za-z0-9*?]+$'))",message="each kind is Kind (StorageAccount), Kind.group (RoleAssignment.authorization.aztenant.io) or group/Kind with the globs * and ? (network.aztenant.io/*, */Vault); a group's kinds are group/*, not *.group"
	Kinds []string `json:"kinds,omitempty"`

	// SharedResources are Azure resources outside the tenant's resource groups that
	// its resources may refer to, such as a hub network's subnets, a central Log
	// Analytics workspace or the private DNS zones of a landing zone. Every other ARM
	// ID a spec names (a subnet, a workspace, a private endpoint's target, a restore
	// source) must lie in the tenant's own subscriptions and resource groups, and a
	// user-assigned identity a resource runs as must be a UserAssignedIdentity of the
	// resource's own namespace; the operator refuses anything else before calling
	// Azure. Sharing never lets the tenant write a shared resource: its own ID is still
	// bounded by subscriptions and resourceGroups.
	// +optional
	// +listType=map
	// +listMapKey=armId
	// +kubebuilder:validation:MaxItems=64
	SharedResources []SharedResource `json:"sharedResources,omitempty"`

	// Weight is the tenant's share of the operator's reconcile throughput relative
	// to other tenants: with weights 2 and 1, the first gets two turns for one.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight int32 `json:"weight,omitempty"`

	// Onboarding, when set, has the operator give each selected namespace its
	// own Azure identity with the platform identity (operator flag
	// --platform-identity): the resource groups, a user-assigned managed
	// identity federated with the namespace's ServiceAccount, role assignments
	// on those resource groups only, the ServiceAccount and the "default"
	// Identity. Removing it (or deleting the Tenant) removes what it created.
	// +optional
	Onboarding *TenantOnboarding `json:"onboarding,omitempty"`
}

// SharedResource is a resource, or a pattern of them, that a Tenant's resources may
// refer to without owning it.
type SharedResource struct {
	// ARMID of the resource, or a pattern of IDs: "*" and "?" match within one
	// segment, case-insensitively. Sharing an ID shares what lies under it too:
	// /subscriptions/<id>/resourceGroups/hub-dns shares every zone of that group,
	// .../virtualNetworks/hub every subnet of the hub network.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^/(?i:subscriptions|providers)/[^/]+(/[^/]+)*$`
	ARMID string `json:"armId"`
	// Description says what it is and why it is shared, for the people reading the
	// Tenant and the denials that name it.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Description string `json:"description,omitempty"`
}

// TenantOnboarding is what the operator creates for each selected namespace.
// Resource-group names must also match spec.resourceGroups; the operator
// checks that with the same matcher its guard uses and reports
// ResourceGroupNotAllowed otherwise.
//
// +kubebuilder:validation:XValidation:rule="!self.resourceGroups.exists(rg, rg.lowerAscii() == self.identityResourceGroup.lowerAscii())",message="identityResourceGroup must not be one of resourceGroups: the namespaces get roles on those, and a role on their own identity would let them federate it elsewhere"
type TenantOnboarding struct {
	// ResourceGroups to create (when missing) in the subscription; the
	// namespaces' identities get Roles on each of them and nothing wider.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +listType=set
	// +kubebuilder:validation:items:Pattern=`^[-\w\._\(\)]{0,89}[-\w_\(\)]$`
	// +kubebuilder:validation:items:MaxLength=90
	ResourceGroups []string `json:"resourceGroups"`

	// Location of created resource groups and identities (ARM name, "westeurope").
	Location azurev1alpha1.Location `json:"location"`

	// Subscription to onboard into; defaults to the first of spec.subscriptions.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$`
	Subscription string `json:"subscription,omitempty"`

	// IdentityResourceGroup holds the namespaces' managed identities (named
	// aztenant-<namespace>). It is the platform team's: the namespaces get no
	// role on it. Created when missing.
	// +optional
	// +kubebuilder:default=platform-identities
	// +kubebuilder:validation:Pattern=`^[-\w\._\(\)]{0,89}[-\w_\(\)]$`
	// +kubebuilder:validation:MaxLength=90
	IdentityResourceGroup string `json:"identityResourceGroup,omitempty"`

	// Roles are built-in role names granted on each resource group. Roles that
	// can grant access (Owner, User Access Administrator, Role Based Access
	// Control Administrator) are refused: a namespace must not widen its own
	// allowance.
	// +optional
	// +kubebuilder:default={"Contributor"}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=64
	// +listType=set
	// +kubebuilder:validation:XValidation:rule="!self.exists(r, r in ['Owner', 'User Access Administrator', 'Role Based Access Control Administrator'])",message="Owner, User Access Administrator and Role Based Access Control Administrator can grant access and are not allowed for onboarded namespaces"
	Roles []string `json:"roles,omitempty"`

	// Apps, when set, also gives each namespace a separate workload identity
	// for its pods, following the azure-workload-identity conventions: a
	// managed identity aztenant-<namespace>-apps (in IdentityResourceGroup),
	// federated with the namespace's ServiceAccount apps.serviceAccountName,
	// holding only the data-plane roles listed, on the resource groups above;
	// and that ServiceAccount, annotated with the identity's client and tenant
	// IDs for the webhook. It never gets Roles (the provisioning ones), and no
	// pod may run as the provisioner account.
	// +optional
	Apps *TenantOnboardingApps `json:"apps,omitempty"`

	// ServiceAccountName is deprecated and ignored: onboarding always federates
	// each namespace's aztenant-provisioner ServiceAccount, which admission
	// reserves for the operator (no one else may get its tokens or run pods as
	// it). A Tenant naming another account (the former default "azure")
	// migrates to it, with an event, and the old account onboarding created is
	// deleted.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
}

// TenantOnboardingApps is the workload identity onboarding gives a
// namespace's pods.
type TenantOnboardingApps struct {
	// ServiceAccountName of the apps' ServiceAccount in each namespace (pods
	// name it and carry the label azure.workload.identity/use: "true").
	// +optional
	// +kubebuilder:default=workload-identity
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self != 'aztenant-provisioner'",message="aztenant-provisioner is reserved for the operator; apps use an account of their own"
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// Roles are built-in data-plane roles (such as "Storage Blob Data
	// Contributor" or "Key Vault Secrets User") granted on each of the
	// namespace's resource groups. A role that is privileged by its actions,
	// or that writes control-plane resources broadly (Contributor), is
	// refused (RoleNotAllowed).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=64
	// +listType=set
	Roles []string `json:"roles"`
}

// TenantStatus reports which namespaces the Tenant currently selects.
type TenantStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready is False when the spec cannot be applied, for instance a
	// namespace selected by two Tenants (reason NamespaceConflict).
	// ResourceGroupsExclusive is False (reason ResourceGroupsOverlap) when
	// another Tenant's resource-group patterns can match the same groups in a
	// shared subscription; the message says which Tenant such a group belongs to.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Namespaces currently selected, sorted.
	// +optional
	Namespaces []string `json:"namespaces,omitempty"`
	// Onboarding reports each onboarding step and records what onboarding
	// created, which is exactly what offboarding deletes.
	// +optional
	Onboarding *OnboardingStatus `json:"onboarding,omitempty"`
}

// Onboarding step names, in the order they run for a namespace.
const (
	StepResourceGroups      = "ResourceGroups"
	StepManagedIdentity     = "ManagedIdentity"
	StepFederatedCredential = "FederatedCredential"
	StepRoleAssignments     = "RoleAssignments"
	StepServiceAccount      = "ServiceAccount"
	StepIdentity            = "Identity"
	// The apps' workload identity (spec.onboarding.apps), after the above.
	StepAppManagedIdentity     = "AppManagedIdentity"
	StepAppFederatedCredential = "AppFederatedCredential"
	StepAppRoleAssignments     = "AppRoleAssignments"
	StepAppServiceAccount      = "AppServiceAccount"
	// The resource groups the namespace's ResourceGroup objects ask for
	// (names the Tenant allows beyond onboarding.resourceGroups): created
	// with the platform identity, with the namespace's roles on them.
	StepRequestedResourceGroups = "RequestedResourceGroups"
)

// ConditionOnboarded is the Tenant condition onboarding maintains; other
// controllers watch it (and status.onboarding) to learn of changes onboarding
// made in Azure.
const ConditionOnboarded = "Onboarded"

// Onboarding step states.
const (
	StepReady    = "Ready"
	StepFailed   = "Failed"
	StepPending  = "Pending"
	StepDeleting = "Deleting"
)

// OnboardingStatus is the progress of onboarding and the record offboarding
// works from.
type OnboardingStatus struct {
	// ObservedGeneration is the spec generation the steps describe.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Steps, one per namespace and step (ResourceGroups is shared by the
	// Tenant's namespaces and has no namespace).
	// +optional
	// +listType=atomic
	Steps []OnboardingStep `json:"steps,omitempty"`
	// Created lists what onboarding created. Something found already
	// existing is never listed, so offboarding never deletes it.
	// +optional
	// +listType=atomic
	Created []CreatedResource `json:"created,omitempty"`
}

// CreatedResource is something onboarding created and offboarding deletes.
type CreatedResource struct {
	// Namespace it was created for; empty for resource groups.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Kind is ResourceGroup, ManagedIdentity, FederatedCredential,
	// RoleAssignment, ServiceAccount or Identity.
	Kind string `json:"kind"`
	// ID is the ARM ID, or namespace/name for Kubernetes objects.
	ID string `json:"id"`
}

// OnboardingStep is one step's outcome.
type OnboardingStep struct {
	// Namespace the step is for; empty for steps shared by all namespaces.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name of the step: ResourceGroups, ManagedIdentity, FederatedCredential,
	// RoleAssignments, ServiceAccount or Identity.
	Name string `json:"name"`
	// State is Ready, Pending, Failed or Deleting.
	State string `json:"state"`
	// Reason is a machine-readable cause when the step is not Ready.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message says what happened, with Azure's own words on failure.
	// +optional
	Message string `json:"message,omitempty"`
	// IDs of what the step manages: ARM IDs, or namespace/name.
	// +optional
	IDs []string `json:"ids,omitempty"`
}

// Tenant is a team's allowance in Azure: which namespaces belong to it and what
// their resources may touch. Which namespaces the operator serves at all follows
// the Tenants (unless an operator flag says otherwise).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories=aztenant
// +kubebuilder:validation:XValidation:rule="!has(self.spec.onboarding) || size(self.metadata.name) <= 63",message="a Tenant with onboarding has a name of at most 63 characters: it labels the ServiceAccounts and Identities onboarding creates"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Namespaces",type=string,JSONPath=`.status.namespaces`
// +kubebuilder:printcolumn:name="Onboarded",type=string,JSONPath=`.status.conditions[?(@.type=="Onboarded")].status`,priority=1
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
