package tenancy

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// Index maps namespaces to the Tenants selecting them, kept current by
// Tenant and Namespace informer events so a lookup is a map read instead of
// listing 200 Tenants and matching selectors on every reconcile.
//
// Work is done on writes (a Tenant change re-matches every known namespace,
// a Namespace change re-matches every Tenant with a selector); reads take a
// read lock only.
type Index struct {
	mu        sync.RWMutex
	policies  map[string]*policy             // tenant name -> compiled spec
	nsLabels  map[string]labels.Set          // namespaces seen, with their labels
	members   map[string][]string            // namespace -> sorted names of Tenants selecting it
	selection map[string]map[string]struct{} // tenant name -> namespaces it selects

	syncMu sync.Mutex
	synced []func() bool

	feedsMu sync.Mutex
	feeds   []*changeFeed // Subscribe's receivers

	// claims caches closerClaim's answers, which scan every Tenant; any
	// Tenant spec change clears it.
	claimsMu  sync.Mutex
	claims    map[claimKey]claim
	claimsGen uint64 // bumped on every clear, so an answer computed before a change is not stored after it
}

type claimKey struct{ tenant, subscription, rg string }

type claim struct{ tenant, pattern string }

// maxClaims bounds the cache; past it, it starts over.
const maxClaims = 100_000

// cachedClaim returns the cached answer, or the generation to store a fresh
// one under.
func (x *Index) cachedClaim(k claimKey) (c claim, ok bool, gen uint64) {
	x.claimsMu.Lock()
	defer x.claimsMu.Unlock()
	c, ok = x.claims[k]
	return c, ok, x.claimsGen
}

func (x *Index) storeClaim(k claimKey, c claim, gen uint64) {
	x.claimsMu.Lock()
	defer x.claimsMu.Unlock()
	if gen != x.claimsGen {
		return
	}
	if x.claims == nil || len(x.claims) >= maxClaims {
		x.claims = map[claimKey]claim{}
	}
	x.claims[k] = c
}

func (x *Index) clearClaims() {
	x.claimsMu.Lock()
	defer x.claimsMu.Unlock()
	x.claims = nil
	x.claimsGen++
}

// NewIndex returns an empty index that reports not synced until Register's
// informers have delivered their initial lists.
func NewIndex() *Index {
	return &Index{
		policies:  map[string]*policy{},
		nsLabels:  map[string]labels.Set{},
		members:   map[string][]string{},
		selection: map[string]map[string]struct{}{},
	}
}

// Register adds the index's event handlers to the Tenant and Namespace
// informers of a controller-runtime cache. Call it before or after the cache
// starts; it does not wait for the informers to sync (see Synced).
func (x *Index) Register(ctx context.Context, informers cache.Informers) error {
	tInf, err := informers.GetInformer(ctx, &tenancyv1alpha1.Tenant{}, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("tenant informer: %w", err)
	}
	nInf, err := informers.GetInformer(ctx, &corev1.Namespace{}, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("namespace informer: %w", err)
	}
	tReg, err := tInf.AddEventHandler(x.tenantHandler())
	if err != nil {
		return fmt.Errorf("tenant handler: %w", err)
	}
	nReg, err := nInf.AddEventHandler(x.namespaceHandler())
	if err != nil {
		return fmt.Errorf("namespace handler: %w", err)
	}
	x.syncMu.Lock()
	x.synced = append(x.synced, tReg.HasSynced, nReg.HasSynced)
	x.syncMu.Unlock()
	return nil
}

// Synced reports whether the index has seen the full initial lists of Tenants
// and Namespaces; until then the Directory lists through its reader.
func (x *Index) Synced() bool {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	if len(x.synced) == 0 {
		return false
	}
	for _, f := range x.synced {
		if !f() {
			return false
		}
	}
	return true
}

// SetTenant adds or replaces a Tenant. The index keeps the pointer: the caller
// must not modify t afterwards (informer objects are never modified).
func (x *Index) SetTenant(t *tenancyv1alpha1.Tenant) {
	x.notify(x.setTenant(t))
}

// setTenant updates the index and returns the namespaces to notify: those
// selected before or after a spec change.
func (x *Index) setTenant(t *tenancyv1alpha1.Tenant) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	if old, ok := x.policies[t.Name]; ok && old.tenant.UID == t.UID && old.tenant.Generation == t.Generation && t.Generation != 0 &&
		old.tenant.DeletionTimestamp.IsZero() == t.DeletionTimestamp.IsZero() {
		// Status-only update: selection and policy are unchanged (a Tenant
		// starting to be deleted is a change: it serves deletions only). Keep the
		// newer object so TenantFor returns fresh status; policies are shared
		// with readers, so replace rather than modify.
		fresh := *old
		fresh.tenant = t
		x.policies[t.Name] = &fresh
		return nil
	}
	p := compile(t)
	x.policies[t.Name] = p
	x.clearClaims()
	changed := x.unselectLocked(t.Name)
	sel := map[string]struct{}{}
	for ns := range p.names {
		sel[ns] = struct{}{}
	}
	if p.usesLabels() {
		for ns, l := range x.nsLabels {
			if p.selector.Matches(l) {
				sel[ns] = struct{}{}
			}
		}
	}
	x.selection[t.Name] = sel
	for ns := range sel {
		x.members[ns] = insertSorted(x.members[ns], t.Name)
		changed = append(changed, ns)
	}
	return changed
}

// DeleteTenant forgets a Tenant.
func (x *Index) DeleteTenant(name string) {
	x.mu.Lock()
	delete(x.policies, name)
	changed := x.unselectLocked(name)
	x.clearClaims()
	x.mu.Unlock()
	x.notify(changed)
}

// unselectLocked removes a Tenant's selection and returns its namespaces.
func (x *Index) unselectLocked(tenant string) []string {
	var was []string
	for ns := range x.selection[tenant] {
		was = append(was, ns)
		x.members[ns] = removeSorted(x.members[ns], tenant)
		if len(x.members[ns]) == 0 {
			delete(x.members, ns)
		}
	}
	delete(x.selection, tenant)
	return was
}

// SetNamespace adds a namespace or updates its labels.
func (x *Index) SetNamespace(name string, nsLabels map[string]string) {
	l := labels.Set(maps.Clone(nsLabels))
	if l == nil {
		l = labels.Set{}
	}
	x.mu.Lock()
	if old, ok := x.nsLabels[name]; ok && maps.Equal(old, l) {
		x.mu.Unlock()
		return
	}
	x.nsLabels[name] = l
	changed := x.rematchLocked(name, l)
	x.mu.Unlock()
	if changed {
		x.notify([]string{name})
	}
}

// DeleteNamespace forgets a namespace. Tenants naming it in spec.namespaces
// still select it, so a re-created namespace is served at once.
func (x *Index) DeleteNamespace(name string) {
	x.mu.Lock()
	delete(x.nsLabels, name)
	changed := x.rematchLocked(name, nil)
	x.mu.Unlock()
	if changed {
		x.notify([]string{name})
	}
}

// rematchLocked recomputes which label-selecting Tenants select namespace ns
// and reports whether that changed.
func (x *Index) rematchLocked(ns string, l labels.Set) (changed bool) {
	for name, p := range x.policies {
		if !p.usesLabels() {
			continue
		}
		want := p.selects(ns, l)
		_, have := x.selection[name][ns]
		switch {
		case want && !have:
			x.selection[name][ns] = struct{}{}
			x.members[ns] = insertSorted(x.members[ns], name)
			changed = true
		case !want && have:
			delete(x.selection[name], ns)
			x.members[ns] = removeSorted(x.members[ns], name)
			if len(x.members[ns]) == 0 {
				delete(x.members, ns)
			}
			changed = true
		}
	}
	return changed
}

// lookup returns the policy of the namespace's single Tenant, or the names of
// the Tenants selecting it when there are none or several.
func (x *Index) lookup(ns string) (*policy, []string) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	m := x.members[ns]
	if len(m) == 1 {
		return x.policies[m[0]], m
	}
	return nil, slices.Clone(m)
}

// policiesSnapshot returns every Tenant's compiled policy (shared, read-only).
func (x *Index) policiesSnapshot() []*policy {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return slices.Collect(maps.Values(x.policies))
}

// group returns the fairness group of a namespace (its Tenant's name) and
// whether the namespace has exactly one Tenant.
func (x *Index) group(ns string) (string, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if m := x.members[ns]; len(m) == 1 {
		return m[0], true
	}
	return "", false
}

// weight returns a Tenant's spec.weight (at least 1), or 0 if unknown.
func (x *Index) weight(tenant string) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if p, ok := x.policies[tenant]; ok {
		return p.weight
	}
	return 0
}

func (x *Index) tenantHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if t, ok := obj.(*tenancyv1alpha1.Tenant); ok {
				x.SetTenant(t)
			}
		},
		UpdateFunc: func(_, obj any) {
			if t, ok := obj.(*tenancyv1alpha1.Tenant); ok {
				x.SetTenant(t)
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if t, ok := obj.(*tenancyv1alpha1.Tenant); ok {
				x.DeleteTenant(t.Name)
			}
		},
	}
}

func (x *Index) namespaceHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if n, ok := obj.(*corev1.Namespace); ok {
				x.SetNamespace(n.Name, n.Labels)
			}
		},
		UpdateFunc: func(_, obj any) {
			if n, ok := obj.(*corev1.Namespace); ok {
				x.SetNamespace(n.Name, n.Labels)
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if n, ok := obj.(*corev1.Namespace); ok {
				x.DeleteNamespace(n.Name)
			}
		},
	}
}

func insertSorted(s []string, v string) []string {
	i, found := slices.BinarySearch(s, v)
	if found {
		return s
	}
	// Copy on write: lookup hands out clones, but keep slices never shared
	// between map entries so a later insert cannot alias another namespace.
	out := make([]string, 0, len(s)+1)
	out = append(out, s[:i]...)
	out = append(out, v)
	return append(out, s[i:]...)
}

func removeSorted(s []string, v string) []string {
	i, found := slices.BinarySearch(s, v)
	if !found {
		return s
	}
	out := make([]string, 0, len(s)-1)
	out = append(out, s[:i]...)
	return append(out, s[i+1:]...)
}
