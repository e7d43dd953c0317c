package tenancy

import (
	"context"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// What Azure makes of a Name (Name.Means), besides the ARM type of a resource
// named by its name.
const (
	// NameResourceGroup: a resource group Azure creates or writes into (an AKS
	// cluster's node resource group).
	NameResourceGroup = "resourceGroup"
	// NameSubscription: a subscription given by ID, where Azure creates or
	// writes something (a partner topic, a capture destination).
	NameSubscription = "subscription"
)

// Name is a name, not an ARM ID, that a request gives Azure and that Azure
// turns into a resource or a destination: a resource group it creates, a
// subscription given by ID, an account it writes to by name (an Event Hubs
// capture's Data Lake account). The generator keeps the list of such fields
// (reconcilers.Facts.Names); the Tenant bounds each like a referenced ARM ID.
type Name struct {
	// Path says where the request gives it ("properties.nodeResourceGroup").
	Path string
	// Value as the request carries it.
	Value string
	// Means is NameResourceGroup, NameSubscription, or the ARM type of the
	// resource the value names (Microsoft.Storage/storageAccounts).
	Means string
	// SubscriptionID is where the named group or resource lies: for a resource
	// group, the subscription given beside it or else the resource's own; for
	// a resource by name, the one given beside it, "" when none is (its name
	// is unique in Azure). Unused for NameSubscription.
	SubscriptionID string
	// Owned: the namespace has an object managing a resource of type Means by
	// that name (a StorageAccount of its own). The caller knows it; the Guard
	// reads no objects.
	Owned bool
}

// AdmitNames returns nil if every name of obj's request lies within the
// bounds of its namespace's Tenant, and a *DeniedError naming the first that
// does not, with its path and value:
//   - a resource group is its ARM ID (/subscriptions/<SubscriptionID>/resourceGroups/<name>),
//     bounded as AdmitReferences bounds a referenced ID: in the Tenant's subscriptions and
//     resource groups, not claimed by a more specific Tenant, or shared;
//   - a subscription must be one of the Tenant's, or shared (/subscriptions/<id>);
//   - a resource by name must be one the namespace manages (Owned) or that the Tenant shares
//     by its ARM ID (the group may be a glob: the name alone does not say it), and the
//     subscription given beside it must be the Tenant's.
//
// A value with a '/' is taken for an ARM ID and bounded as AdmitReferences
// does. Served without a Tenant (mode all or list), names are not bounded.
func (g *Guard) AdmitNames(ctx context.Context, obj client.Object, names []Name) error {
	if len(names) == 0 {
		return nil
	}
	p, err := g.boundsOf(ctx, obj)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := g.admitName(ctx, obj, p, n); err != nil {
			return err
		}
	}
	return nil
}

func (g *Guard) admitName(ctx context.Context, obj client.Object, p *policy, n Name) error {
	if n.Means == NameSubscription {
		sub, ok := subscriptionOf(n.Value)
		if !ok {
			return denied(RuleARMID, "%s: %q is not a subscription ID (a GUID, or /subscriptions/<GUID>)", n.Path, n.Value)
		}
		return admitSubscription(p, n.Path, sub, fmt.Sprintf("gives subscription %q", n.Value))
	}
	if strings.Contains(n.Value, "/") {
		// An ARM ID where a name may be given (a resource group's ID).
		return g.AdmitReferences(ctx, obj, []Reference{{Path: n.Path, ARMID: n.Value, Owned: n.Owned}})
	}
	if n.Means == NameResourceGroup {
		if !isGUID(n.SubscriptionID) {
			return denied(RuleARMID, "%s names resource group %q in subscription %q, which is not a GUID", n.Path, n.Value, n.SubscriptionID)
		}
		return g.AdmitReferences(ctx, obj, []Reference{{Path: n.Path, ARMID: "/subscriptions/" + n.SubscriptionID + "/resourceGroups/" + n.Value}})
	}
	if err := checkPlainName(n.Value); err != "" {
		return denied(RuleARMID, "%s: %q is not a %s name: %s", n.Path, n.Value, n.Means, err)
	}
	what := fmt.Sprintf("names %s %q", n.Means, n.Value)
	if n.SubscriptionID != "" && !isGUID(n.SubscriptionID) {
		return denied(RuleARMID, "%s %s in subscription %q, which is not a GUID", n.Path, what, n.SubscriptionID)
	}
	if p == nil || p.sharesNamed(n.Means, n.Value, n.SubscriptionID) {
		return nil
	}
	if n.SubscriptionID != "" {
		if err := admitSubscription(p, n.Path, n.SubscriptionID, what+" in subscription "+n.SubscriptionID); err != nil {
			return err
		}
	}
	if n.Owned {
		return nil
	}
	return denied(RuleSharedResources, "%s %s, which no object of namespace %q manages and tenant %q does not share: Azure would write to it. "+
		"Manage it from this namespace, or a platform team can share it by its ARM ID in tenant %q's spec.sharedResources",
		n.Path, what, obj.GetNamespace(), p.name(), p.name())
}

// admitSubscription bounds a subscription the request names at path.
func admitSubscription(p *policy, path, sub, what string) error {
	if p == nil || p.allowsSubscription(sub) {
		return nil
	}
	if _, ok := p.shares("/subscriptions/" + sub); ok {
		return nil
	}
	return denied(RuleSharedResources, "%s %s, outside tenant %q (subscriptions: %s): Azure would create or write there; "+
		"a platform team can share it in tenant %q's spec.sharedResources", path, what, p.name(), allowedList(p.tenant.Spec.Subscriptions, false), p.name())
}

// subscriptionOf reads a subscription ID given as a GUID or as its ARM ID.
func subscriptionOf(s string) (string, bool) {
	if rest, ok := cutPrefixFold(s, "/subscriptions/"); ok {
		s = rest
	}
	return s, isGUID(s)
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// checkPlainName accepts the names accounts and namespaces take in Azure
// (letters, digits, hyphens; storage accounts are stricter, Azure says so).
func checkPlainName(s string) string {
	if s == "" || len(s) > 64 {
		return "it must have 1 to 64 characters"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return fmt.Sprintf("character %q is not allowed", c)
		}
	}
	return ""
}

// sharesNamed reports whether spec.sharedResources names a resource of
// armType called name (in subscription sub when it is not ""), in whatever
// resource group: a name alone does not say which group holds it, so only an
// entry naming the resource itself shares it, not one sharing its group.
func (p *policy) sharesNamed(armType, name, sub string) bool {
	ns, typ, ok := strings.Cut(strings.ToLower(armType), "/")
	if !ok || strings.Contains(typ, "/") {
		return false // a top-level type only: accounts and namespaces
	}
	name, sub = strings.ToLower(name), strings.ToLower(sub)
	for _, pat := range p.shared {
		seg := strings.Split(pat, "/")
		if len(seg) != 9 || seg[0] != "" || seg[1] != "subscriptions" || seg[3] != "resourcegroups" || seg[5] != "providers" {
			continue
		}
		if sub != "" && !match(seg[2], sub) {
			continue
		}
		if match(seg[6], ns) && match(seg[7], typ) && match(seg[8], name) {
			return true
		}
	}
	return false
}

func match(pattern, s string) bool {
	ok, _ := path.Match(pattern, s)
	return ok
}
