package kinds

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api/authorization/roles"
	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	cachev1alpha1 "github.com/aztenant/aztenant/api/cache/v1alpha1"
	containerservicev1alpha1 "github.com/aztenant/aztenant/api/containerservice/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers"
)

// RoleAssignment adapts Microsoft.Authorization/roleAssignments, an extension
// resource of its scope (the owner: a resource group, another aztenant
// resource, or any ARM ID). It has no location and no tags.
//
// Its PUT body needs two things the spec does not hold, read by resolve from
// the object's own namespace: the principal ID when it comes from a ConfigMap,
// and the subscription a role definition ID is qualified with.
//
// Built-in roles are named from the role table (package roles); whether a
// privileged one may be granted is the policy library's call. A role the
// table does not hold is a custom role: verify reads its definition from ARM
// and refuses it, before anything is written, when its actions are
// privileged.
type RoleAssignment struct{}

var _ reconcilers.Kind = RoleAssignment{}

// roleAssignmentNamespace is the UUIDv5 namespace of derived assignment names.
var roleAssignmentNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://aztenant.io/roleassignments"))

// Keys of resolve's result.
const (
	resolvedPrincipalID  = "principalId"
	resolvedSubscription = "subscriptionId"
)

func (RoleAssignment) New() azurev1alpha1.Resource { return &authorizationv1alpha1.RoleAssignment{} }

// Facts: the default owner is a ResourceGroup; each object may name another
// of OwnerKinds (with group and kind), which the generic reconciler reads
// from OwnerGroupKind, so the assignment proceeds as soon as such an owner
// becomes Ready.
func (RoleAssignment) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.Authorization/roleAssignments",
		APIVersion:   "2022-04-01",
		OwnerKind:    resourcesv1alpha1.ResourceGroupGroupKind,
		OwnerKinds: []schema.GroupKind{
			resourcesv1alpha1.ResourceGroupGroupKind,
			managedidentityv1alpha1.UserAssignedIdentityGroupKind,
			storagev1alpha1.StorageAccountGroupKind,
			{Group: cachev1alpha1.GroupVersion.Group, Kind: "Redis"},
			dbforpostgresqlv1alpha1.FlexibleServerGroupKind,
			{Group: containerservicev1alpha1.GroupVersion.Group, Kind: "ManagedCluster"},
		},
		// A role definition lives at subscription (or directory) scope; Verify
		// reads a custom one and refuses a privileged one.
		OutsideGroups: []string{"properties.roleDefinitionId"},
		// Azure answers the role definition's ID at another scope than sent
		// (RoleAssignments_CreateForSubscription.json, 2022-04-01: sent under
		// /subscriptions/..., answered under /providers/...): its GUID names it.
		Normalize: map[string]reconcilers.Normalizer{
			"properties.roleDefinitionId": {Name: reconcilers.NormalizeRoleDefinitionID},
		},
	}
}

// Hooks: the GUID name (armID), the principal and subscription read from
// the namespace (resolve), and the check of custom roles (verify).
func (k RoleAssignment) Hooks() reconcilers.Hooks {
	return reconcilers.Hooks{ARMID: k.armID, Resolve: k.resolve, Verify: k.verify}
}

// armID is the assignment under its scope. Without spec.azureName the name is
// a UUIDv5 of the object's namespace, name and scope: the same object always
// names the same assignment, so a retry or a restart never creates a second.
func (RoleAssignment) armID(obj azurev1alpha1.Resource, parentID string) string {
	name := obj.AzureName()
	if name == "" {
		name = uuid.NewSHA1(roleAssignmentNamespace,
			[]byte(obj.GetNamespace()+"/"+obj.GetName()+"/"+strings.ToLower(parentID))).String()
	}
	return parentID + "/providers/Microsoft.Authorization/roleAssignments/" + name
}

// resolve reads the principal ID (spec.principalId, or the key named by
// spec.principalIdFromConfig) and, when the role definition ID lacks one, the
// subscription to qualify it with: the scope's, which is the armId's or, for a
// named owner, that of the namespace's Identity (the guards keep every owner
// in it).
func (RoleAssignment) resolve(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error) {
	ra := obj.(*authorizationv1alpha1.RoleAssignment)
	out := map[string]string{}
	switch ref := ra.Spec.PrincipalIDFromConfig; {
	case ra.Spec.PrincipalID != "":
		out[resolvedPrincipalID] = ra.Spec.PrincipalID
	case ref != nil:
		var cm corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKey{Namespace: ra.Namespace, Name: ref.Name}, &cm); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("principalIdFromConfig: ConfigMap %q does not exist in namespace %q", ref.Name, ra.Namespace)
			}
			return nil, fmt.Errorf("principalIdFromConfig: reading ConfigMap %q: %w", ref.Name, err)
		}
		v := strings.TrimSpace(cm.Data[ref.Key])
		if v == "" {
			return nil, fmt.Errorf("principalIdFromConfig: ConfigMap %q in namespace %q has no key %q (or it is empty)", ref.Name, ra.Namespace, ref.Key)
		}
		out[resolvedPrincipalID] = v
	}
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

// Desired, without resolved values, knows only a literal principalId and an
// unqualified role definition ID.
func (RoleAssignment) Desired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error) {
	ra := obj.(*authorizationv1alpha1.RoleAssignment)
	rd, err := roleDefinitionID(ra.Spec.RoleDefinitionReference, resolved[resolvedSubscription])
	if err != nil {
		return nil, err
	}
	principal := resolved[resolvedPrincipalID]
	if principal == "" {
		principal = ra.Spec.PrincipalID
	}
	if principal == "" {
		return nil, fmt.Errorf("set principalId or principalIdFromConfig")
	}
	props := map[string]any{"roleDefinitionId": rd, "principalId": principal}
	putStr(props, "principalType", ra.Spec.PrincipalType)
	putStr(props, "description", ra.Spec.Description)
	putStr(props, "condition", ra.Spec.Condition)
	putStr(props, "conditionVersion", ra.Spec.ConditionVersion)
	return map[string]any{"properties": props}, nil
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

// verify reads the definition of a role the table does not know (a custom
// role) with the namespace's own identity and refuses it when
// roles.Privileged says so, or when it is Broad (Contributor's shape) and the
// assignment's scope is a whole subscription, as the policy library treats
// Contributor. Built-in roles are not read: the table knows them. A custom
// role is read at every reconcile, so one widened after its assignment was
// made is reported too.
func (RoleAssignment) verify(ctx context.Context, get reconcilers.ARMGetter, obj azurev1alpha1.Resource, armID string) error {
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

func (RoleAssignment) Observe(obj azurev1alpha1.Resource, actual map[string]any) {
	ra := obj.(*authorizationv1alpha1.RoleAssignment)
	p := propsOf(actual)
	ra.Status.Scope = strOf(p, "scope")
	ra.Status.RoleDefinitionID = strOf(p, "roleDefinitionId")
	ra.Status.PrincipalID = strOf(p, "principalId")
}
