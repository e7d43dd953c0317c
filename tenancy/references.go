package tenancy

import (
	"context"
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SameNamespace returns a *CrossNamespaceError when a reference from obj
// names another namespace. An empty refNamespace means "obj's namespace" and
// always passes. kind is the referenced kind ("Secret", "Identity",
// "ResourceGroup") and appears in the message.
//
// Every reference the operator follows (owners, secret and config-map
// references, identity references) goes through this one check: a namespace's
// identity must never be usable by, or lend data to, another namespace.
func SameNamespace(obj client.Object, kind, refNamespace, refName string) error {
	if refNamespace == "" || refNamespace == obj.GetNamespace() {
		return nil
	}
	return &CrossNamespaceError{
		ObjectKind:      obj.GetObjectKind().GroupVersionKind().Kind,
		ObjectNamespace: obj.GetNamespace(),
		ObjectName:      obj.GetName(),
		RefKind:         kind,
		RefNamespace:    refNamespace,
		RefName:         refName,
	}
}

// Reference is an ARM ID a request names other than the resource it writes: a
// subnet, a workspace receiving logs, a private endpoint's target, the identity
// the resource runs as, an owner given by ARM ID.
type Reference struct {
	// Path says where the request names it ("properties.subnet.id", "spec.owner.armId").
	Path string
	// ARMID as the request carries it.
	ARMID string
	// OutsideGroups: the kind names something ARM keeps outside resource groups
	// here (a role definition) and checks it itself; the Tenant bounds only its
	// subscription.
	OutsideGroups bool
	// Owned: the namespace has an object managing this resource (a
	// UserAssignedIdentity of its own). The caller knows it; the Guard reads no
	// objects.
	Owned bool
}

// userAssignedIdentityType is the ARM type of the identities a resource runs as.
const userAssignedIdentityType = "Microsoft.ManagedIdentity/userAssignedIdentities"

// AdmitReferences returns nil if every reference of obj's request lies within
// the bounds of its namespace's Tenant, and a *DeniedError naming the first that
// does not. Bounds, in order:
//   - an ID the Tenant shares (spec.sharedResources), or one under it, is allowed;
//   - a user-assigned identity must be one the namespace owns, with a Tenant or
//     without: running as another namespace's identity would act with its rights;
//   - anything else must lie in the Tenant's subscriptions and resource groups,
//     not claimed more specifically by another Tenant, like the resource itself.
//
// Served without a Tenant (mode all or list), only the identity rule holds.
func (g *Guard) AdmitReferences(ctx context.Context, obj client.Object, refs []Reference) error {
	if len(refs) == 0 {
		return nil
	}
	p, err := g.boundsOf(ctx, obj)
	if err != nil {
		return err
	}
	for _, ref := range refs {
		if err := g.admitReference(ctx, obj, p, ref); err != nil {
			return err
		}
	}
	return nil
}

// boundsOf is the policy of obj's namespace's Tenant, or nil when the
// namespace is served without one (Admit has said whether it is served).
func (g *Guard) boundsOf(ctx context.Context, obj client.Object) (*policy, error) {
	p, err := g.dir.policyFor(ctx, obj.GetNamespace())
	if _, none := err.(*NoTenantError); none {
		return nil, nil
	}
	return p, err
}

func (g *Guard) admitReference(ctx context.Context, obj client.Object, p *policy, ref Reference) error {
	// Parsed first: a share applies to a well-formed ID only, so text after a
	// shared ID cannot ride on it. (An ID appended to a shared one is found
	// and bounded on its own as well: FindARMIDs.)
	id, err := ParseARMID(ref.ARMID)
	if err != nil {
		if ref.OutsideGroups && isDirectoryDefinition(ref.ARMID) {
			return nil // a definition of the directory (a built-in role), in no subscription
		}
		return denied(RuleARMID, "%s: %v", ref.Path, err)
	}
	if p != nil {
		if _, ok := p.shares(ref.ARMID); ok {
			return nil
		}
	}
	share := "a platform team can share it with the Tenant's spec.sharedResources"
	if p != nil {
		share = fmt.Sprintf("a platform team can share it in tenant %q's spec.sharedResources", p.name())
	}
	if strings.EqualFold(id.Type, userAssignedIdentityType) {
		if ref.Owned {
			return nil
		}
		return denied(RuleSharedResources, "%s names user-assigned identity %s, which no UserAssignedIdentity of namespace %q manages: "+
			"a resource may run only as an identity of its own namespace (%s)", ref.Path, ref.ARMID, obj.GetNamespace(), share)
	}
	if p == nil {
		return nil
	}
	tenant, spec := p.name(), &p.tenant.Spec
	if !p.allowsSubscription(id.SubscriptionID) {
		return denied(RuleSharedResources, "%s refers to %s in subscription %q, outside tenant %q (subscriptions: %s); %s",
			ref.Path, ref.ARMID, id.SubscriptionID, tenant, allowedList(spec.Subscriptions, false), share)
	}
	if ref.OutsideGroups {
		return nil
	}
	if id.ResourceGroup == "" || !p.allowsResourceGroup(id.ResourceGroup) {
		return denied(RuleSharedResources, "%s refers to %s, outside tenant %q's resource groups (%s); %s",
			ref.Path, ref.ARMID, tenant, allowedList(spec.ResourceGroups, false), share)
	}
	if other, _, err := g.dir.closerClaim(ctx, p, id.SubscriptionID, id.ResourceGroup); err != nil {
		return err
	} else if other != "" {
		return denied(RuleSharedResources, "%s refers to %s, in resource group %q of tenant %q; %s",
			ref.Path, ref.ARMID, id.ResourceGroup, other, share)
	}
	return nil
}

// isDirectoryDefinition: /providers/{namespace}/{type}/{name}, a definition
// the directory keeps in no subscription (a built-in role definition), with
// the segments the strict parser accepts.
func isDirectoryDefinition(id string) bool {
	segs := strings.Split(id, "/")
	if len(segs) != 5 || segs[0] != "" || !strings.EqualFold(segs[1], "providers") || !isProviderNamespace(segs[2]) || !isTypeSegment(segs[3]) {
		return false
	}
	return checkSegment(segs[4]) == ""
}
