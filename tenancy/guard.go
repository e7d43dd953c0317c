package tenancy

import (
	"context"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/internal/armtarget"
)

// Target is what a reconciler is about to touch in Azure.
type Target = armtarget.Target

// Guard checks a request against the Tenant of the object's namespace before
// any ARM call. Safe for concurrent use.
type Guard struct {
	dir *Directory
}

// NewGuard returns a Guard consulting dir for Tenants and the served mode.
func NewGuard(dir *Directory) *Guard { return &Guard{dir: dir} }

// Admit returns nil if obj may touch t. Refusals are terminal and carry a
// Reason() for the Ready condition: *DeniedError (reason TenantPolicyDenied)
// for anything outside the Tenant's allowance or a malformed ARM ID, and
// *ConflictError when several Tenants select the namespace. Any other error
// is a failure to read Tenants and worth retrying.
func (g *Guard) Admit(ctx context.Context, obj client.Object, t Target) error {
	ns := obj.GetNamespace()
	if ns == "" {
		return denied(RuleNamespaces, "%s %q is cluster-scoped; tenant identities only serve namespaced objects", kindOf(obj, t), obj.GetName())
	}
	mode := g.dir.Mode()
	if mode.kind == serveList && !mode.listed(ns) {
		return denied(RuleNamespaces, "namespace %q is not served by this operator (served: %s)", ns, mode)
	}

	id, err := ParseARMID(t.ARMID)
	if err != nil {
		return denied(RuleARMID, "%v", err)
	}
	if t.SubscriptionID != "" && !strings.EqualFold(id.SubscriptionID, t.SubscriptionID) {
		return denied(RuleARMID, "ARM ID %q lies in subscription %q, not in the expected subscription %q",
			t.ARMID, id.SubscriptionID, t.SubscriptionID)
	}
	if t.ResourceGroup != "" && !strings.EqualFold(id.ResourceGroup, t.ResourceGroup) {
		return denied(RuleARMID, "ARM ID %q lies in %s, not in the expected resource group %q",
			t.ARMID, id.scope(), t.ResourceGroup)
	}

	p, err := g.dir.policyFor(ctx, ns)
	switch err.(type) {
	case nil:
	case *NoTenantError:
		if mode.RequiresTenant() {
			if !obj.GetDeletionTimestamp().IsZero() {
				// Without a Tenant nothing bounds what the namespace's
				// identity may delete: say how to get the object released.
				return denied(RuleNamespaces, "namespace %q is not selected by any Tenant, so nothing bounds what its identity may touch and nothing is deleted in Azure; "+
					"have a Tenant select the namespace again to delete the resource, or annotate the object aztenant.io/reconcile-policy: detach-on-delete to leave it in Azure and let the object go", ns)
			}
			return denied(RuleNamespaces, "namespace %q is not selected by any Tenant; this operator serves only namespaces of a Tenant", ns)
		}
		// Served without a Tenant (mode all or list): no allowance to check.
		return nil
	default:
		return err
	}
	tenant := p.name()
	spec := &p.tenant.Spec
	// A Tenant being deleted serves deletions only; they are still checked
	// against its bounds below.
	terminating := !p.tenant.DeletionTimestamp.IsZero() && obj.GetDeletionTimestamp().IsZero()

	if !p.allowsSubscription(id.SubscriptionID) {
		return denied(RuleSubscriptions, "subscription %q is not allowed for tenant %q (allowed: %s)",
			id.SubscriptionID, tenant, allowedList(spec.Subscriptions, false))
	}
	if id.ResourceGroup == "" {
		return denied(RuleResourceGroups, "%q is outside any resource group; tenant %q may only use resource groups (allowed: %s)",
			t.ARMID, tenant, allowedList(spec.ResourceGroups, false))
	}
	if !p.allowsResourceGroup(id.ResourceGroup) {
		return denied(RuleResourceGroups, "resource group %q is not allowed for tenant %q (allowed: %s)",
			id.ResourceGroup, tenant, allowedList(spec.ResourceGroups, false))
	}
	if other, pat, err := g.dir.closerClaim(ctx, p, id.SubscriptionID, id.ResourceGroup); err != nil {
		return err
	} else if other != "" {
		_, mine := p.rgClaim(id.ResourceGroup)
		return denied(RuleResourceGroups, "resource group %q belongs to tenant %q, whose pattern %q is more specific than tenant %q's %q",
			id.ResourceGroup, other, pat, tenant, mine)
	}
	if t.Location != "" && !p.allowsLocation(t.Location) {
		return denied(RuleLocations, "location %q is not allowed for tenant %q (allowed: %s)",
			t.Location, tenant, allowedList(spec.Locations, true))
	}
	if len(p.kinds) > 0 {
		gk := t.GroupKind
		if gk.Kind == "" {
			gk = obj.GetObjectKind().GroupVersionKind().GroupKind()
		}
		if gk.Kind == "" || !p.allowsKind(gk) {
			return denied(RuleKinds, "kind %q is not allowed for tenant %q (allowed: %s)",
				gk.String(), tenant, allowedList(spec.Kinds, true))
		}
	}
	if terminating {
		return &TerminatingError{Tenant: tenant, Namespace: ns, Kind: kindOf(obj, t), Name: obj.GetName()}
	}
	return nil
}

func kindOf(obj client.Object, t Target) string {
	if t.GroupKind.Kind != "" {
		return t.GroupKind.Kind
	}
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	return "object"
}
