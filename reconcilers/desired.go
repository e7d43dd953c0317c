package reconcilers

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// This file builds the body of a PUT: the kind's desired body, and what of
// Azure's a PUT must carry.

// desired builds the PUT body and normalises it through JSON, so numbers and
// nested types compare like ARM's decoded answers. A spec's reserved tags
// (tags.go) are refused, and so is a value Azure would not keep (Facts.Forced).
func (r *Reconciler) desired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error) {
	body, err := r.Kind.Desired(obj, resolved)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	if err := reservedTags(out); err != nil {
		return nil, err
	}
	if err := refuseForced(r.Kind.Facts(), out); err != nil {
		return nil, err
	}
	return out, nil
}

// carryOnPut returns body with the paths the kind declares (Facts.CarriedOnPut)
// copied from actual where body lacks them, so a PUT keeps what Azure has
// there. body's maps are copied along each such path, not changed.
func carryOnPut(k Kind, body, actual map[string]any) map[string]any {
	if actual == nil {
		return body
	}
	for _, path := range k.Facts().CarriedOnPut {
		keys := strings.Split(path, ".")
		v, found := any(actual), true
		for _, key := range keys {
			m, ok := v.(map[string]any)
			if v, found = m[key]; !ok || !found {
				found = false
				break
			}
		}
		if found {
			body = withPath(body, keys, v)
		}
	}
	return body
}

// withPath is a copy of m with v at keys unless m has a value there already.
func withPath(m map[string]any, keys []string, v any) map[string]any {
	if _, has := m[keys[0]]; has && len(keys) == 1 {
		return m
	}
	sub, isMap := m[keys[0]].(map[string]any)
	if _, has := m[keys[0]]; has && !isMap {
		return m
	}
	out := make(map[string]any, len(m)+1)
	for k, e := range m {
		out[k] = e
	}
	if len(keys) == 1 {
		out[keys[0]] = v
	} else {
		out[keys[0]] = withPath(sub, keys[1:], v)
	}
	return out
}

// namespaceReader confines Hooks.Resolve to its object's namespace: references
// never cross namespaces. A referenced object of a registered kind asked for as
// unstructured (the generated kinds read references so) is read typed: from the
// manager's cache, as a reconcile's other reads, where the client would send a GET
// to the API server (it caches no unstructured objects) at every sync of every
// object that references another.
type namespaceReader struct {
	client.Reader
	namespace string
	registry  *Registry
}

func (r *Reconciler) namespaceReader(namespace string) namespaceReader {
	return namespaceReader{Reader: r.Client, namespace: namespace, registry: r.Registry}
}

func (n namespaceReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if key.Namespace != n.namespace {
		return fmt.Errorf("%s/%s is in another namespace than %s: references never cross namespaces", key.Namespace, key.Name, n.namespace)
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || n.registry == nil {
		return n.Reader.Get(ctx, key, obj, opts...)
	}
	gvk := u.GroupVersionKind()
	k, ok := n.registry.Lookup(gvk.GroupKind())
	if !ok {
		return n.Reader.Get(ctx, key, obj, opts...)
	}
	typed := k.New()
	if err := n.Reader.Get(ctx, key, typed, opts...); err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return err
	}
	u.SetUnstructuredContent(m)
	u.SetGroupVersionKind(gvk)
	return nil
}

func (n namespaceReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return n.Reader.List(ctx, list, append(opts, client.InNamespace(n.namespace))...)
}

// stepBuild makes the desired body.
func (r *Reconciler) stepBuild(ctx context.Context, x *run) error {
	b, err := r.build(ctx, x.obj)
	x.body = b
	return err
}

// build makes the desired body, with the Secrets and objects Hooks.Resolve
// reads, before any ARM call: the references in it are checked first.
func (r *Reconciler) build(ctx context.Context, obj azurev1alpha1.Resource) (built, error) {
	var resolved map[string]string
	if resolve := r.Kind.Hooks().Resolve; resolve != nil {
		var err error
		if resolved, err = resolve(ctx, r.namespaceReader(obj.GetNamespace()), obj); err != nil {
			return built{}, newOutcome(ReasonReferenceNotFound, err.Error())
		}
	}
	desired, err := r.desired(obj, resolved)
	if err != nil {
		return built{}, newOutcome(ReasonInvalidSpec, err.Error())
	}
	return built{desired: desired, secrets: slices.Collect(maps.Values(resolved))}, nil
}
