package exports

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Put sets key of the object name in m to value.
func Put(m map[string]map[string]string, name, key, value string) {
	if m[name] == nil {
		m[name] = map[string]string{}
	}
	m[name][key] = value
}

// HasAny says whether any of the destinations is set.
func HasAny(m map[string]*azurev1alpha1.SecretDestination) bool {
	for _, d := range m {
		if d != nil {
			return true
		}
	}
	return false
}

// WriteAll writes each Secret (secret) or ConfigMap of byName (object name,
// then key and value) in the owner's namespace, in the order of their names,
// and stops at the first error: an *InvalidNameError or a *ConflictError
// when the name cannot be written, else the API server's.
func WriteAll(ctx context.Context, c client.Client, owner azurev1alpha1.Resource, byName map[string]map[string]string, secret bool) error {
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeOne(ctx, c, owner, n, byName[n], secret); err != nil {
			return err
		}
	}
	return nil
}

// InvalidNameError: a Secret or ConfigMap name that is not a valid name in
// the namespace (such as "other-namespace/name"), never sent to the API server.
type InvalidNameError struct {
	kind, name string
	problems   []string
}

func (e *InvalidNameError) Error() string {
	return fmt.Sprintf("%s name %q is not a valid name in this namespace (%s): choose another in spec.operatorSpec", e.kind, e.name, strings.Join(e.problems, "; "))
}

// ConflictError: a Secret or ConfigMap of that name exists and is not owned
// by the resource; it is never overwritten.
type ConflictError struct{ kind, name string }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s %q exists and is not owned by this resource: it was not overwritten; delete it or choose another name", e.kind, e.name)
}

// writeOne creates or updates one Secret or ConfigMap owned by obj, writing
// only when its data differs. An object it does not own is never touched.
func writeOne(ctx context.Context, c client.Client, obj azurev1alpha1.Resource, name string, data map[string]string, secret bool) error {
	var target client.Object
	kind := "ConfigMap"
	if secret {
		target, kind = &corev1.Secret{}, "Secret"
	} else {
		target = &corev1.ConfigMap{}
	}
	if problems := validation.IsDNS1123Subdomain(name); len(problems) > 0 {
		// Such as "other-namespace/name": never sent to the API server.
		return &InvalidNameError{kind: kind, name: name, problems: problems}
	}
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}
	err := c.Get(ctx, key, target)
	switch {
	case apierrors.IsNotFound(err):
		target.SetNamespace(key.Namespace)
		target.SetName(key.Name)
		setData(target, data)
		if s, ok := target.(*corev1.Secret); ok {
			markExported(s, data)
		}
		if err := controllerutil.SetControllerReference(obj, target, c.Scheme()); err != nil {
			return err
		}
		return c.Create(ctx, target)
	case err != nil:
		return err
	}
	if !metav1.IsControlledBy(target, obj) {
		return &ConflictError{kind: kind, name: name}
	}
	changed := setData(target, data)
	if s, ok := target.(*corev1.Secret); ok && markExported(s, data) {
		changed = true
	}
	if !changed {
		return nil
	}
	return c.Update(ctx, target)
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
