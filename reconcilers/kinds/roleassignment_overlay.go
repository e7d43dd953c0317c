package kinds

import (
	"context"
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api/authorization/roles"
	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers"
)

// What a role assignment does that its model cannot say (the generated adapter,
// zz_generated_roleassignment.go, has its API from api/kinds.yaml: an extension resource
// whose scope is the owner, a derived GUID name, principalIdFromConfig, and the role held
// in RoleDefinitionReference).
//
// Its PUT body needs the role definition's ID, which the spec names by ARM ID or by a
// built-in role's name (the role table, package roles), qualified with a subscription:
// the scope's, read by resolve from the object's own namespace when the owner is named.
// Azure answers the ID at another scope than sent (RoleAssignments_CreateForSubscription.json,
// 2022-04-01: sent under /subscriptions/..., answered under /providers/...): its GUID names
// it (api/kinds.yaml, answered: roleDefinitionID).
//
// Whether a privileged built-in role may be granted is the policy library's call. A role
// the table does not hold is a custom role: verify reads its definition from ARM
// (Role Definitions - Get, learn.microsoft.com/rest/api/authorization/role-definitions/get)
// and refuses it, before anything is written, when its actions are privileged.
var _ = overlay(authorizationv1alpha1.RoleAssignmentGroupKind, Overlay{
	Facts: func(f *reconcilers.Facts) {
		// A role definition lives at subscription (or directory) scope; Verify reads a
		// custom one and refuses a privileged one.
		f.OutsideGroups = []string{"properties.roleDefinitionId"}
	},
	Hooks: func(h *reconcilers.Hooks) {
		h.Resolve = roleAssignmentResolve(h.Resolve)
		h.Verify = roleAssignmentVerify
	},
	Desired: roleAssignmentDesired,
})

// resolvedSubscription is the key of the subscription role definition IDs are qualified
// with in Resolve's result.
const resolvedSubscription = "subscriptionId"

// roleAssignmentResolve wraps the generated Resolve, which reads the principal ID from
// spec.principalIdFromConfig, with the subscription to qualify the role definition ID
// with when it lacks one: the scope's, which is the armId's or, for a named owner, that
// of the namespace's Identity (the guards keep every owner in it).
func roleAssignmentResolve(generated func(context.Context, client.Reader, azurev1alpha1.Resource) (map[string]string, error)) func(context.Context, client.Reader, azurev1alpha1.Resource) (map[string]string, error) {
	return func(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error) {
		out, err := generated(ctx, c, obj)
		if err != nil {
			return nil, err
		}
		return roleAssignmentSubscription(ctx, c, obj.(*authorizationv1alpha1.RoleAssignment), out)
	}
}

// roleAssignmentSubscription adds the subscription of the role's scope to out, unless
// the role definition ID names its own.
func roleAssignmentSubscription(ctx context.Context, c client.Reader, ra *authorizationv1alpha1.RoleAssignment, out map[string]string) (map[string]string, error) {
	if strings.HasPrefix(strings.ToLower(ra.Spec.RoleDefinitionReference.ARMID), "/subscriptions/") {
		return out, nil
	}
	if owner := ra.Spec.Owner; owner != nil && owner.ARMID != "" {
		out[resolvedSubscription] = subscriptionOf(owner.ARMID)
		return out, nil
	}
	name, err := identity.IdentityNameFor(ra)
	if err != nil {
		return nil, err
	}
	var id identityv1alpha1.Identity
	if err := c.Get(ctx, client.ObjectKey{Namespace: ra.Namespace, Name: name}, &id); err != nil {
		return nil, fmt.Errorf("reading Identity %q for the role definition's subscription: %w", name, err)
	}
	out[resolvedSubscription] = id.Spec.SubscriptionID
	return out, nil
}

// roleAssignmentDesired is the generated body (the principal from principalId or, once
// resolved, principalIdFromConfig; type, description and condition) with the role
// definition's ID in place. Without resolved values it knows only a literal principalId
// and an unqualified role definition ID.
func roleAssignmentDesired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error) {
	ra := obj.(*authorizationv1alpha1.RoleAssignment)
	rd, err := roleDefinitionID(ra.Spec.RoleDefinitionReference, resolved[resolvedSubscription])
	if err != nil {
		return nil, err
	}
	body, err := RoleAssignment{}.Desired(obj, resolved)
	if err != nil {
		return nil, err
	}
	props, _ := body["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		body["properties"] = props
	}
	if p, _ := props["principalId"].(string); p == "" {
		return nil, fmt.Errorf("set principalId or principalIdFromConfig")
	}
	props["roleDefinitionId"] = rd
	return body, nil
}

// roleDefinitionID is the full ID of the referenced role, in the form ARM
// answers with (qualified by subscription), so it compares equal.
func roleDefinitionID(ref authorizationv1alpha1.RoleDefinitionReference, subscription string) (string, error) {
	id := ref.ARMID
	if ref.WellKnownName != "" {
		d, ok := roles.ByName(ref.WellKnownName)
		if !ok {
			return "", fmt.Errorf("roleDefinitionReference.wellKnownName %q is not a built-in role aztenant knows", ref.WellKnownName)
		}
		id = "/providers/Microsoft.Authorization/roleDefinitions/" + d.ID
	}
	if id == "" {
		return "", fmt.Errorf("set roleDefinitionReference.armId or roleDefinitionReference.wellKnownName")
	}
	if !strings.HasPrefix(strings.ToLower(id), "/subscriptions/") && subscription != "" {
		id = "/subscriptions/" + subscription + id
	}
	return id, nil
}

// roleDefinitionsAPIVersion is the api-version verify reads role definitions
// with.
const roleDefinitionsAPIVersion = "2022-04-01"

// roleAssignmentVerify reads the definition of a role the table does not know (a custom
// role) with the namespace's own identity and refuses it when
// roles.Privileged says so, or when it is Broad (Contributor's shape) and the
// assignment's scope is a whole subscription, as the policy library treats
// Contributor. Built-in roles are not read: the table knows them. A custom
// role is read at every reconcile, so one widened after its assignment was
// made is reported too.
func roleAssignmentVerify(ctx context.Context, get reconcilers.ARMGetter, obj azurev1alpha1.Resource, armID string) error {
	ra := obj.(*authorizationv1alpha1.RoleAssignment)
	ref := ra.Spec.RoleDefinitionReference
	if ref.WellKnownName != "" || ref.ARMID == "" {
		return nil
	}
	if _, builtIn := roles.ByID(ref.ARMID); builtIn {
		return nil
	}
	rd, err := roleDefinitionID(ref, subscriptionOf(armID))
	if err != nil {
		return err
	}
	body, err := get(ctx, rd, roleDefinitionsAPIVersion)
	if err != nil {
		return err
	}
	if body == nil {
		return &RoleCheckError{RoleDefinitionID: rd, reason: reconcilers.ReasonReferenceNotFound,
			Why: "it does not exist, or the namespace's identity cannot see it; a custom role is checked before it is assigned"}
	}
	def, err := roles.FromARM(body)
	if err != nil {
		return &RoleCheckError{RoleDefinitionID: rd, reason: reconcilers.ReasonGuardFailed,
			Why: "its definition could not be read (" + err.Error() + "), so its actions cannot be checked"}
	}
	if p, why := roles.Privileged(def); p {
		return &RoleCheckError{RoleDefinitionID: rd, reason: ReasonPolicyDenied, Why: why}
	}
	if b, why := roles.Broad(def); b && subscriptionScope(armID) {
		return &RoleCheckError{RoleDefinitionID: rd, reason: ReasonPolicyDenied, Why: why + "; at subscription scope that is every team's resources: scope it to a resource group"}
	}
	return nil
}

// ReasonPolicyDenied is the reason of an assignment refused because its
// custom role is privileged: the reason the policy library's denials carry
// (policy.ReasonPolicyDenied).
const ReasonPolicyDenied = "PolicyDenied"

// RoleCheckError stops a RoleAssignment whose custom role is privileged, or
// could not be checked, before anything is written.
type RoleCheckError struct {
	RoleDefinitionID string
	Why              string
	reason           string
}

func (e *RoleCheckError) Error() string {
	if e.reason == ReasonPolicyDenied {
		return fmt.Sprintf("roleDefinitionReference.armId %s is privileged, and aztenant does not assign privileged roles: %s", e.RoleDefinitionID, e.Why)
	}
	return fmt.Sprintf("roleDefinitionReference.armId %s: %s", e.RoleDefinitionID, e.Why)
}

// Reason is the Ready condition's reason.
func (e *RoleCheckError) Reason() string { return e.reason }

// subscriptionScope reports whether a role assignment's ID puts it at a
// subscription (or wider) rather than a resource group or resource.
func subscriptionScope(assignmentID string) bool {
	scope := assignmentID
	if i := strings.Index(strings.ToLower(scope), "/providers/microsoft.authorization/roleassignments/"); i >= 0 {
		scope = scope[:i]
	}
	segs := strings.Split(strings.Trim(scope, "/"), "/")
	return len(segs) <= 2
}

// subscriptionOf is the subscription ID of an ARM ID, "" when it has none.
func subscriptionOf(id string) string {
	segs := strings.Split(strings.TrimPrefix(id, "/"), "/")
	if len(segs) >= 2 && strings.EqualFold(segs[0], "subscriptions") {
		return segs[1]
	}
	return ""
}
