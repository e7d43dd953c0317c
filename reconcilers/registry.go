package reconcilers

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

// Registry knows every Kind by its GroupKind, so owners and children can be
// found across kinds.
type Registry struct {
	scheme *runtime.Scheme
	kinds  map[schema.GroupKind]Kind
	gvks   map[Kind]schema.GroupVersionKind
	order  []schema.GroupKind

	// served are the kinds whose controller runs (package controllers marks
	// them, MarkServed): only those have an informer and indexes. What
	// lists every kind (InUse, keptChildren) lists these: a kind whose CRD
	// is not installed has no objects, and listing it would fail or start a
	// cache.
	mu     sync.RWMutex
	served map[schema.GroupKind]bool
}

// NewRegistry registers kinds whose types are in scheme, refusing one that
// breaks the contract (checkKind).
func NewRegistry(scheme *runtime.Scheme, kinds ...Kind) (*Registry, error) {
	r := &Registry{scheme: scheme, kinds: map[schema.GroupKind]Kind{}, gvks: map[Kind]schema.GroupVersionKind{}, served: map[schema.GroupKind]bool{}}
	for _, k := range kinds {
		if err := checkKind(k); err != nil {
			return nil, err
		}
		gvk, err := apiutil.GVKForObject(k.New(), scheme)
		if err != nil {
			return nil, fmt.Errorf("kind %s: %w", k.Facts().ResourceType, err)
		}
		r.kinds[gvk.GroupKind()] = k
		r.gvks[k] = gvk
		r.order = append(r.order, gvk.GroupKind())
	}
	return r, nil
}

// Kinds returns the registered kinds in registration order.
func (r *Registry) Kinds() []Kind {
	out := make([]Kind, 0, len(r.order))
	for _, gk := range r.order {
		out = append(out, r.kinds[gk])
	}
	return out
}

// Lookup returns the registered kind of gk.
func (r *Registry) Lookup(gk schema.GroupKind) (Kind, bool) {
	k, ok := r.kinds[gk]
	return k, ok
}

// GroupVersionKind is the GVK of a registered kind.
func (r *Registry) GroupVersionKind(k Kind) schema.GroupVersionKind { return r.gvks[k] }

// Served reports whether the controller of gk runs.
func (r *Registry) Served(gk schema.GroupKind) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.served[gk]
}

// MarkServed records that the controller of gk runs: from now on, what lists
// every kind lists gk's objects too.
func (r *Registry) MarkServed(gk schema.GroupKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.served[gk] = true
}

// MarkNotServed records that the controller of gk stopped (its CRD was
// deleted): what lists every kind leaves gk out again.
func (r *Registry) MarkNotServed(gk schema.GroupKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.served, gk)
}

func (r *Registry) newObject(gk schema.GroupKind) (azurev1alpha1.Resource, error) {
	k, ok := r.kinds[gk]
	if !ok {
		return nil, fmt.Errorf("owner kind %s is not served by this operator", gk)
	}
	return k.New(), nil
}

func (r *Registry) groupKindOf(k Kind) schema.GroupKind { return r.gvks[k].GroupKind() }

// NewList returns an empty list object of a registered kind.
func (r *Registry) NewList(k Kind) (client.ObjectList, error) {
	gvk := r.gvks[k]
	gvk.Kind += "List"
	o, err := r.scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("list type of %s: %w", gvk, err)
	}
	return o.(client.ObjectList), nil
}

// InUse lists the objects of every served kind in a namespace that still
// hold the reconciler's finalizer: they may still need the namespace's
// identity to delete their Azure resources.
func (r *Registry) InUse(c client.Reader) identity.InUseFunc {
	return func(ctx context.Context, namespace string) ([]identity.Holder, error) {
		var out []identity.Holder
		for _, gk := range r.order {
			if !r.Served(gk) {
				continue
			}
			list, err := r.NewList(r.kinds[gk])
			if err != nil {
				return nil, err
			}
			if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
				return nil, err
			}
			_ = meta.EachListItem(list, func(item runtime.Object) error {
				o := item.(client.Object)
				if controllerutil.ContainsFinalizer(o, Finalizer) {
					name, _ := identity.IdentityNameFor(o)
					out = append(out, identity.Holder{Kind: gk.Kind, Name: o.GetName(), Identity: name, Deleting: !o.GetDeletionTimestamp().IsZero()})
				}
				return nil
			})
		}
		return out, nil
	}
}
