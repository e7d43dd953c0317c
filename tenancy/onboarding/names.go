package onboarding

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	azroles "github.com/aztenant/aztenant/api/authorization/roles"
)

// Defaults of spec.onboarding, also used by `aztenant onboard --print`.
const (
	DefaultIdentityResourceGroup = "platform-identities"
	// DefaultAppServiceAccount is the apps' ServiceAccount (spec.onboarding.apps).
	DefaultAppServiceAccount = "workload-identity"
	DefaultRole              = "Contributor"
	// TagOnboardedBy on a resource group or managed identity names the Tenant
	// whose onboarding created it.
	// Azure refuses '/' in tag names (InvalidTagNameCharacters), hence '-'.
	TagOnboardedBy = "aztenant.io-onboarded-by"
	// LegacyTagOnboardedBy is the name earlier versions wrote (the emulator
	// accepted it; Azure does not); onboarding still recognises it.
	LegacyTagOnboardedBy = "aztenant.io/onboarded-by"
	// LabelOnboardedBy on a ServiceAccount or Identity names the Tenant whose
	// onboarding created it.
	LabelOnboardedBy = "tenancy.aztenant.io/onboarded-by"
	// Finalizer keeps a Tenant until offboarding has removed what it created.
	Finalizer = "tenancy.aztenant.io/offboarding"
	// TokenAudience is the audience of federated credentials.
	TokenAudience = "api://AzureADTokenExchange"
)

// PrivilegedRoles are the built-in roles onboarding never assigns: those the
// role table marks privileged by their actions (they can assign roles, or act
// as other principals). A namespace holding one could widen its own
// allowance.
var PrivilegedRoles = privilegedRoles()

func privilegedRoles() []string {
	var out []string
	for _, d := range azroles.BuiltIn() {
		if p, _ := azroles.Privileged(d); p {
			out = append(out, d.Name)
		}
	}
	return out
}

// IdentityName is the user-assigned managed identity of a namespace.
func IdentityName(namespace string) string { return "aztenant-" + namespace }

// AppIdentityName is the user-assigned managed identity of a namespace's
// apps (spec.onboarding.apps).
func AppIdentityName(namespace string) string { return "aztenant-" + namespace + "-apps" }

// CheckAppRole returns the role definition GUID of a built-in role the apps'
// identity may hold: a data-plane role (it has data actions), neither
// privileged by its actions nor broad over the control plane (Contributor's
// "*"). The apps' identity must never be able to do what provisioning does.
func CheckAppRole(role string) (string, error) {
	guid, err := CheckRole(role)
	if err != nil {
		return "", err
	}
	d, _ := azroles.ByName(role)
	if b, why := azroles.Broad(d); b {
		return "", &StepError{Reason: ReasonRoleNotAllowed, Message: fmt.Sprintf(
			"role %q is a provisioning role, not a data-plane one: %s", role, why)}
	}
	if !slices.ContainsFunc(d.Permissions, func(p azroles.Permission) bool { return len(p.DataActions) > 0 }) {
		return "", &StepError{Reason: ReasonRoleNotAllowed, Message: fmt.Sprintf(
			"role %q has no data actions: the apps' identity holds data-plane roles only", role)}
	}
	return guid, nil
}

// FederatedCredentialName is the managed identity's federated credential for
// the namespace's ServiceAccount.
func FederatedCredentialName(namespace string) string { return "aztenant-" + namespace }

// Subject is the token subject of a ServiceAccount.
func Subject(namespace, serviceAccount string) string {
	return "system:serviceaccount:" + namespace + ":" + serviceAccount
}

// roleAssignmentSpace is the UUIDv5 namespace of onboarding's role
// assignment names (random, fixed forever: changing it would duplicate every
// assignment).
var roleAssignmentSpace = uuid.MustParse("6f0b7c1e-3f4a-5d2b-9c8e-a1b2c3d4e5f6")

// RoleAssignmentName is the deterministic GUID of the assignment of role
// definition roleDefinitionID to principalID at scope.
func RoleAssignmentName(scope, principalID, roleDefinitionID string) string {
	key := strings.ToLower(scope) + "|" + strings.ToLower(principalID) + "|" + strings.ToLower(roleDefinitionID)
	return uuid.NewSHA1(roleAssignmentSpace, []byte(key)).String()
}

// CheckRole returns the role definition GUID of a built-in role onboarding
// may assign, or a *StepError with reason RoleNotAllowed: the role must be in
// the role table and not privileged by its actions (azroles.Privileged).
//
// Contributor, the default, is not privileged but Broad: its "*" (less every
// Microsoft.Authorization write) also writes federated credentials, assigns
// managed identities and runs commands on VMs and AKS clusters, over the
// resources of its scope. Onboarding grants it only on the Tenant's resource
// groups, never at subscription scope, and never on a group holding managed
// identities (checkSpec refuses every onboarding Tenant's identity resource
// group), so those powers reach only what the namespace itself creates there,
// never another team's identities or the platform's.
func CheckRole(role string) (string, error) {
	d, ok := azroles.ByName(role)
	if !ok {
		return "", &StepError{Reason: ReasonRoleNotAllowed, Message: fmt.Sprintf(
			"role %q is not a built-in role aztenant knows", role)}
	}
	if p, why := azroles.Privileged(d); p {
		return "", &StepError{Reason: ReasonRoleNotAllowed, Message: fmt.Sprintf(
			"role %q is never assigned to an onboarded namespace: %s", role, why)}
	}
	return d.ID, nil
}

// RoleDefinitionID is the full ID of a built-in role in a subscription, in the
// form ARM answers with.
func RoleDefinitionID(subscription, guid string) string {
	return "/subscriptions/" + subscription + "/providers/Microsoft.Authorization/roleDefinitions/" + guid
}

// ResourceGroupID is the ARM ID of a resource group.
func ResourceGroupID(subscription, rg string) string {
	return "/subscriptions/" + subscription + "/resourceGroups/" + rg
}

// ManagedIdentityID is the ARM ID of a namespace's managed identity.
func ManagedIdentityID(subscription, identityRG, namespace string) string {
	return ResourceGroupID(subscription, identityRG) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + IdentityName(namespace)
}
