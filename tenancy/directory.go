package tenancy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// Directory answers which Tenant a namespace belongs to and whether the
// operator serves it. It reads from its Index once the index has synced and
// lists through the reader before that, so it is correct from the first
// reconcile and cheap afterwards. Safe for concurrent use.
type Directory struct {
	reader client.Reader
	mode   ServeMode
	index  *Index
}

// NewDirectory returns a Directory reading Tenants and Namespaces through
// reader (the manager's cache-backed client in the operator). Call
// SetupWithManager (or Index().Register) to switch to event-fed lookups.
func NewDirectory(reader client.Reader, mode ServeMode) *Directory {
	return &Directory{reader: reader, mode: mode, index: NewIndex()}
}

// SetupWithManager feeds the Directory's index from the manager's cache.
func (d *Directory) SetupWithManager(mgr manager.Manager) error {
	return d.index.Register(context.Background(), mgr.GetCache())
}

// Index returns the Directory's index, for wiring to other informers.
func (d *Directory) Index() *Index { return d.index }

// Mode returns the served-namespaces policy.
func (d *Directory) Mode() ServeMode { return d.mode }

// TenantFor returns a copy of the Tenant selecting namespace, a
// *NoTenantError if none does, or a *ConflictError if several do.
func (d *Directory) TenantFor(ctx context.Context, namespace string) (*tenancyv1alpha1.Tenant, error) {
	p, err := d.policyFor(ctx, namespace)
	if err != nil {
		return nil, err
	}
	return p.tenant.DeepCopy(), nil
}

// Serves reports whether the operator reconciles objects in namespace under
// its ServeMode. A namespace selected by several Tenants is served, so that
// its objects get a Ready=False NamespaceConflict condition from the Guard
// instead of being silently ignored.
func (d *Directory) Serves(ctx context.Context, namespace string) (bool, error) {
	switch d.mode.kind {
	case serveAll:
		return true, nil
	case serveList:
		return d.mode.listed(namespace), nil
	}
	_, err := d.policyFor(ctx, namespace)
	switch err.(type) {
	case nil, *ConflictError:
		return true, nil
	case *NoTenantError:
		return false, nil
	default:
		return false, err
	}
}

// GroupOf is the fairness key of a namespace: its Tenant's name, or the
// namespace itself when it has no single Tenant. It never blocks or does I/O
// (it is called under the work queue's lock), so before the index has synced
// every namespace is its own group.
func (d *Directory) GroupOf(namespace string) string {
	if name, ok := d.index.group(namespace); ok {
		return "tenant/" + name
	}
	return "namespace/" + namespace
}

// WeightOf returns the weight of a group from GroupOf: the Tenant's
// spec.weight, 1 for namespaces without a Tenant.
func (d *Directory) WeightOf(group string) int {
	if name, ok := strings.CutPrefix(group, "tenant/"); ok {
		if w := d.index.weight(name); w > 0 {
			return w
		}
	}
	return 1
}

func (d *Directory) policyFor(ctx context.Context, namespace string) (*policy, error) {
	var (
		p     *policy
		names []string
	)
	if d.index.Synced() {
		p, names = d.index.lookup(namespace)
	} else {
		var err error
		if p, names, err = d.list(ctx, namespace); err != nil {
			return nil, err
		}
	}
	switch {
	case p != nil:
		return p, nil
	case len(names) == 0:
		return nil, &NoTenantError{Namespace: namespace}
	default:
		return nil, &ConflictError{Namespace: namespace, Tenants: names}
	}
}

// closerClaim returns a Tenant other than p's that allows the subscription
// and claims the resource group with a more specific pattern ("team-a-x-*"
// against "team-a-*"): the group is that Tenant's, or namespaces named like
// prefixes of others would reach their resource groups. Equal claims (a group
// both Tenants name) are shared on purpose and not reported.
func (d *Directory) closerClaim(ctx context.Context, p *policy, subscription, rg string) (tenant, pattern string, err error) {
	mine, _ := p.rgClaim(rg)
	var others []*policy
	if d.index.Synced() {
		key := claimKey{p.name(), strings.ToLower(subscription), strings.ToLower(rg)}
		c, ok, gen := d.index.cachedClaim(key)
		if ok {
			return c.tenant, c.pattern, nil
		}
		defer func() {
			if err == nil {
				d.index.storeClaim(key, claim{tenant, pattern}, gen)
			}
		}()
		others = d.index.policiesSnapshot()
	} else {
		var tenants tenancyv1alpha1.TenantList
		if err := d.reader.List(ctx, &tenants); err != nil {
			return "", "", fmt.Errorf("list tenants: %w", err)
		}
		for i := range tenants.Items {
			others = append(others, compile(&tenants.Items[i]))
		}
	}
	best := mine
	for _, o := range others {
		if o.name() == p.name() || !o.allowsSubscription(subscription) {
			continue
		}
		if s, pat := o.rgClaim(rg); s > best {
			best, tenant, pattern = s, o.name(), pat
		}
	}
	return tenant, pattern, nil
}

// list is the slow path used until the index has synced.
func (d *Directory) list(ctx context.Context, namespace string) (*policy, []string, error) {
	var nsLabels labels.Set
	ns := &corev1.Namespace{}
	switch err := d.reader.Get(ctx, client.ObjectKey{Name: namespace}, ns); {
	case err == nil:
		nsLabels = labels.Set(ns.Labels)
		if nsLabels == nil {
			nsLabels = labels.Set{}
		}
	case apierrors.IsNotFound(err):
		// Only selection by name can apply to a namespace that is gone.
	default:
		return nil, nil, fmt.Errorf("get namespace %q: %w", namespace, err)
	}
	var tenants tenancyv1alpha1.TenantList
	if err := d.reader.List(ctx, &tenants); err != nil {
		return nil, nil, fmt.Errorf("list tenants: %w", err)
	}
	var (
		match *policy
		names []string
	)
	for i := range tenants.Items {
		p := compile(&tenants.Items[i])
		if p.selects(namespace, nsLabels) {
			match = p
			names = append(names, p.name())
		}
	}
	slices.Sort(names)
	if len(names) != 1 {
		return nil, names, nil
	}
	return match, names, nil
}
