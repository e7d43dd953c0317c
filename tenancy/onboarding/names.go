package onboarding

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
)

// Defaults of spec.onboarding, also used by `aztenant onboard --print`.
const (
	DefaultServiceAccount        = "azure"
	DefaultIdentityResourceGroup = "platform-identities"
	DefaultRole                  = "Contributor"
	// TagOnboardedBy on a resource group or managed identity names the Tenant
	// whose onboarding created it.
	TagOnboardedBy = "aztenant.io/onboarded-by"
	// LabelOnboardedBy on a ServiceAccount or Identity names the Tenant whose
	// onboarding created it.
	LabelOnboardedBy = "tenancy.aztenant.io/onboarded-by"
	// Finalizer keeps a Tenant until offboarding has removed what it created.
	Finalizer = "tenancy.aztenant.io/offboarding"
	// TokenAudience is the audience of federated credentials.
	TokenAudience = "api://AzureADTokenExchange"
)

// PrivilegedRoles can grant access to others; a namespace holding one could
// widen its own allowance, so onboarding never assigns them.
var PrivilegedRoles = []string{"Owner", "User Access Administrator", "Role Based Access Control Administrator"}

// IdentityName is the user-assigned managed identity of a namespace.
func IdentityName(namespace string) string { return "aztenant-" + namespace }

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
// may assign, or a *StepError with reason RoleNotAllowed.
func CheckRole(role string) (string, error) {
	if slices.Contains(PrivilegedRoles, role) {
		return "", &StepError{Reason: ReasonRoleNotAllowed, Message: fmt.Sprintf(
			"role %q can grant access and is never assigned to an onboarded namespace", role)}
	}
	guid, ok := authorizationv1alpha1.WellKnownRoleDefinitions[role]
	if !ok {
		return "", &StepError{Reason: ReasonRoleNotAllowed, Message: fmt.Sprintf(
			"role %q is not a built-in role aztenant knows", role)}
	}
	return guid, nil
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
