package reconcilers

import (
	"context"
	"fmt"
	"maps"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// export writes the kind's outputs to the Secrets and ConfigMaps the user named.
// It returns a state when an export failed (the resource itself is fine).
func (r *Reconciler) export(ctx context.Context, obj azurev1alpha1.Resource, calls armCalls, id string) *state {
	if src, ok := r.Kind.(ConfigMapSource); ok {
		dests := src.ConfigMapDestinations(obj)
		if len(dests) > 0 {
			values := src.ConfigMapValues(obj)
			byName := map[string]map[string]string{}
			for out, d := range dests {
				if d == nil {
					continue
				}
				if byName[d.Name] == nil {
					byName[d.Name] = map[string]string{}
				}
				byName[d.Name][d.Key] = values[out]
			}
			if s := r.writeAll(ctx, obj, byName, false); s != nil {
				return s
			}
		}
	}
	if src, ok := r.Kind.(SecretSource); ok {
		dests := src.SecretDestinations(obj)
		if hasAny(dests) {
			values, err := src.Secrets(ctx, func(ctx context.Context, action string) (map[string]any, error) {
				return calls.action(ctx, id, action)
			}, obj)
			if err != nil {
				s := failed(ReasonExportFailed, "reading secrets from Azure: "+err.Error(), false)
				return &s
			}
			byName := map[string]map[string]string{}
			for out, d := range dests {
				if d == nil {
					continue
				}
				if byName[d.Name] == nil {
					byName[d.Name] = map[string]string{}
				}
				byName[d.Name][d.Key] = values[out]
			}
			if s := r.writeAll(ctx, obj, byName, true); s != nil {
				return s
			}
		}
	}
	return nil
}

func hasAny(m map[string]*azurev1alpha1.SecretDestination) bool {
	for _, d := range m {
		if d != nil {
			return true
		}
	}
	return false
}

func (r *Reconciler) writeAll(ctx context.Context, obj azurev1alpha1.Resource, byName map[string]map[string]string, secret bool) *state {
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := r.writeOne(ctx, obj, n, byName[n], secret); err != nil {
			reason := ReasonExportFailed
			if _, ok := err.(*conflictError); ok {
				reason = ReasonExportConflict
			}
			s := failed(reason, err.Error(), false)
			return &s
		}
	}
	return nil
}

type conflictError struct{ kind, name string }

func (e *conflictError) Error() string {
	return fmt.Sprintf("%s %q exists and is not owned by this resource: it was not overwritten; delete it or choose another name", e.kind, e.name)
}

// writeOne creates or updates one Secret or ConfigMap owned by obj, writing
// only when its data differs. An object it does not own is never touched.
func (r *Reconciler) writeOne(ctx context.Context, obj azurev1alpha1.Resource, name string, data map[string]string, secret bool) error {
	var target client.Object
	kind := "ConfigMap"
	if secret {
		target, kind = &corev1.Secret{}, "Secret"
	} else {
		target = &corev1.ConfigMap{}
	}
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}
	err := r.Client.Get(ctx, key, target)
	switch {
	case apierrors.IsNotFound(err):
		target.SetNamespace(key.Namespace)
		target.SetName(key.Name)
		setData(target, data)
		if err := controllerutil.SetControllerReference(obj, target, r.Client.Scheme()); err != nil {
			return err
		}
		return r.Client.Create(ctx, target)
	case err != nil:
		return err
	}
	if !metav1.IsControlledBy(target, obj) {
		return &conflictError{kind: kind, name: name}
	}
	if !setData(target, data) {
		return nil
	}
	return r.Client.Update(ctx, target)
}

// setData merges data into the object, reporting whether anything changed.
func setData(o client.Object, data map[string]string) bool {
	switch t := o.(type) {
	case *corev1.Secret:
		if t.Data == nil {
			t.Data = map[string][]byte{}
		}
		changed := false
		for k, v := range data {
			if string(t.Data[k]) != v {
				t.Data[k] = []byte(v)
				changed = true
			}
		}
		return changed
	case *corev1.ConfigMap:
		if t.Data == nil {
			t.Data = map[string]string{}
		}
		before := maps.Clone(t.Data)
		maps.Copy(t.Data, data)
		return !maps.Equal(before, t.Data)
	}
	return false
}
