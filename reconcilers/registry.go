package reconcilers

import (
	"context"
	"fmt"

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
}

// NewRegistry registers kinds whose types are in scheme, refusing one that
// breaks the contract (checkKind).
func NewRegistry(scheme *runtime.Scheme, kinds ...Kind) (*Registry, error) {
	r := &Registry{scheme: scheme, kinds: map[schema.GroupKind]Kind{}, gvks: map[Kind]schema.GroupVersionKind{}}
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

// GroupVersionKind is k's, as registered.
func (r *Registry) GroupVersionKind(k Kind) schema.GroupVersionKind { return r.gvks[k] }

// Kind is the registered kind of gk.
func (r *Registry) Kind(gk schema.GroupKind) (Kind, bool) {
	k, ok := r.kinds[gk]
	return k, ok
}

func (r *Registry) newObject(gk schema.GroupKind) (azurev1alpha1.Resource, error) {
	k, ok := r.kinds[gk]
	if !ok {
		return nil, fmt.Errorf("owner kind %s is not served by this operator", gk)
	}
	return k.New(), nil
}

func (r *Registry) groupKindOf(k Kind) schema.GroupKind { return r.gvks[k].GroupKind() }

// newList returns an empty list object of a registered kind.
func (r *Registry) newList(k Kind) (client.ObjectList, error) {
	gvk := r.gvks[k]
	gvk.Kind += "List"
	o, err := r.scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("list type of %s: %w", gvk, err)
	}
	return o.(client.ObjectList), nil
}

// InUse lists the objects of every kind in a namespace that still hold the
// reconciler's finalizer: they may still need the namespace's identity to
// delete their Azure resources.
func (r *Registry) InUse(c client.Reader) identity.InUseFunc {
	return func(ctx context.Context, namespace string) ([]identity.Holder, error) {
		var out []identity.Holder
		for _, gk := range r.order {
			list, err := r.newList(r.kinds[gk])
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
