package reconcilers

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
	"github.com/aztenant/aztenant/tenancy"
)

// This file bounds the names a request gives Azure that Azure turns into
// resources or destinations (Facts.Names), with the references (step 2 of the
// flow, doc.go), before any ARM call.

// NameRef is a field of the PUT body holding a name Azure turns into a
// resource or a destination (Facts.Names).
type NameRef struct {
	// Path is the field's dotted body path ("properties.nodeResourceGroup").
	// Lists on the way are crossed (each element is looked at); "*" crosses
	// the values of a map ("properties.siteConfig.azureStorageAccounts.*.accountName").
	// The value is a string or a list of strings.
	Path string
	// Means is what Azure makes of the value: NameResourceGroup,
	// NameSubscription, or the ARM type of the resource it names by its name
	// (Microsoft.Storage/storageAccounts). A value with a '/' is taken for the
	// ARM ID of what it names.
	Means string
	// SubscriptionPath, when set, is the dotted body path of the subscription
	// the named group or resource lies in: a subscription ID, or an ARM ID
	// whose subscription Azure uses (a Container Apps environment's subnet).
	// Where it crosses the same lists as Path, the same element's is read.
	// Unset or empty: a resource group lies in the resource's own
	// subscription; a resource by name, anywhere (its name is unique in Azure).
	SubscriptionPath string
}

// What Azure makes of a NameRef's value, besides the ARM type of a resource.
const (
	NameResourceGroup = tenancy.NameResourceGroup
	NameSubscription  = tenancy.NameSubscription
)

// NameGuard admits the names a request gives Azure (tenancy.Guard does,
// against the Tenant).
type NameGuard interface {
	AdmitNames(ctx context.Context, obj client.Object, names []tenancy.Name) error
}

// admitNames asks the NameGuard about every value at the kind's Facts.Names
// paths of desired, the body of a write to id. A resource named by its name
// counts as the namespace's when an object of the namespace of a kind of that
// ARM type manages one of that name (as a user-assigned identity does in
// admitReferences).
func (r *Reconciler) admitNames(ctx context.Context, obj azurev1alpha1.Resource, id string, desired map[string]any) *Outcome {
	refs := r.Kind.Facts().Names
	if r.NameGuard == nil || len(refs) == 0 {
		return nil
	}
	own := ""
	if p, err := tenancy.ParseARMID(id); err == nil {
		own = p.SubscriptionID
	}
	var names []tenancy.Name
	for _, ref := range refs {
		for _, v := range namesAt(desired, ref.Path) {
			if v.value == "" {
				continue
			}
			n := tenancy.Name{Path: v.path, Value: v.value, Means: ref.Means}
			if ref.Means != NameSubscription {
				sub, o := subscriptionBeside(desired, ref, v)
				if o != nil {
					return o
				}
				if sub == "" && ref.Means == NameResourceGroup {
					sub = own
				}
				n.SubscriptionID = sub
			}
			if ref.Means != NameResourceGroup && ref.Means != NameSubscription {
				owned, pending, err := r.ownsNamed(ctx, obj.GetNamespace(), ref.Means, v.value, n.SubscriptionID)
				if err != nil {
					return newOutcome(ReasonGuardFailed, fmt.Sprintf("could not list the namespace's objects of type %s to check %s: %v", ref.Means, v.path, err))
				}
				if pending != "" {
					// Its own, once its object has created it: wait, as for a reference by name.
					return newOutcome(ReasonReferenceNotFound, fmt.Sprintf("%s names %q: waiting for %s %q of this namespace to exist in Azure", v.path, v.value, pending, v.value))
				}
				n.Owned = owned
			}
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	err := r.NameGuard.AdmitNames(ctx, obj, names)
	return guardOutcome(err)
}

// subscriptionBeside is the subscription ref.SubscriptionPath gives for the
// value v ("" when it gives none). A value that names no subscription is a
// refusal: Azure would read one from it that the guard could not check.
func subscriptionBeside(body map[string]any, ref NameRef, v nameValue) (string, *Outcome) {
	if ref.SubscriptionPath == "" {
		return "", nil
	}
	vals := valuesAt(body, ref.SubscriptionPath, v.trail)
	switch {
	case len(vals) == 0:
		return "", nil
	case len(vals) > 1:
		return "", newOutcome(tenancy.ReasonPolicyDenied, fmt.Sprintf("%s: %q is given with several subscriptions at %s (%s): which one it lies in cannot be told",
			v.path, v.value, ref.SubscriptionPath, strings.Join(vals, ", ")))
	}
	s := vals[0]
	if strings.Contains(s, "/") {
		p, err := tenancy.ParseARMID(s)
		if err != nil {
			return "", newOutcome(tenancy.ReasonPolicyDenied, fmt.Sprintf("%s: %q lies in the subscription of %s, and %v", v.path, v.value, ref.SubscriptionPath, err))
		}
		return p.SubscriptionID, nil
	}
	return s, nil
}

// ownsNamed reports whether an object of namespace, of a served kind of ARM
// type armType, manages a resource called name (in subscription sub unless it
// is ""). Names are compared as ARM does, without regard to case. pending
// names the kind of an object of that Azure name that has no resource in
// Azure yet (not being deleted): the caller waits for it.
func (r *Reconciler) ownsNamed(ctx context.Context, namespace, armType, name, sub string) (owned bool, pending string, err error) {
	if r.Registry == nil {
		return false, "", nil
	}
	for _, k := range r.Registry.Kinds() {
		gk := r.Registry.groupKindOf(k)
		if !strings.EqualFold(k.Facts().ResourceType, armType) || !r.Registry.Served(gk) {
			continue
		}
		list, err := r.Registry.NewList(k)
		if err != nil {
			return false, "", err
		}
		if err := r.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return false, "", err
		}
		_ = meta.EachListItem(list, func(item runtime.Object) error {
			o := item.(azurev1alpha1.Resource)
			id := o.AzureStatus().ID
			if id == "" && strings.EqualFold(o.AzureName(), name) && o.GetDeletionTimestamp().IsZero() {
				pending = gk.Kind
			}
			p, err := tenancy.ParseARMID(id)
			if err == nil && strings.EqualFold(p.Type, armType) && strings.EqualFold(p.Name, name) && (sub == "" || strings.EqualFold(p.SubscriptionID, sub)) {
				owned = true
			}
			return nil
		})
		if owned {
			return true, "", nil
		}
	}
	return false, pending, nil
}

// nameValue is one string found at a NameRef's path.
type nameValue struct {
	// path is where, dotted, with list indexes and map keys in brackets
	// ("properties.eventHubReceivers[1].subscriptionId").
	path, value string
	// trail maps each list or map crossed on the way, by its plain dotted
	// path, to the element taken ("1", a map key).
	trail map[string]string
}

// namesAt returns the strings at path in body, in a stable order.
func namesAt(body map[string]any, path string) []nameValue {
	var out []nameValue
	walkPath(body, strings.Split(path, "."), nil, func(concrete string, trail map[string]string, v any) {
		switch t := v.(type) {
		case string:
			out = append(out, nameValue{path: concrete, value: t, trail: trail})
		case []any:
			for i, e := range t {
				if s, ok := e.(string); ok {
					out = append(out, nameValue{path: fmt.Sprintf("%s[%d]", concrete, i), value: s, trail: trail})
				}
			}
		}
	})
	return out
}

// valuesAt returns the distinct non-empty strings at path, following trail
// where path crosses the same lists and maps.
func valuesAt(body map[string]any, path string, trail map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	walkPath(body, strings.Split(path, "."), trail, func(_ string, _ map[string]string, v any) {
		if s, ok := v.(string); ok && s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	})
	return out
}

// walkPath calls visit with each value at steps below v. A list is crossed
// at every step, a map's values at a "*" step; follow, when it names the
// element taken at a list or map (by its plain path), restricts it to that one.
func walkPath(v any, steps []string, follow map[string]string, visit func(concrete string, trail map[string]string, v any)) {
	var walk func(v any, i int, concrete, plain string, trail map[string]string)
	cross := func(plain string, trail map[string]string, key string) (map[string]string, bool) {
		if want, ok := follow[plain]; ok && want != key {
			return nil, false
		}
		t := make(map[string]string, len(trail)+1)
		for k, e := range trail {
			t[k] = e
		}
		t[plain] = key
		return t, true
	}
	walk = func(v any, i int, concrete, plain string, trail map[string]string) {
		if l, ok := v.([]any); ok && i < len(steps) {
			for j, e := range l {
				if t, ok := cross(plain, trail, strconv.Itoa(j)); ok {
					walk(e, i, fmt.Sprintf("%s[%d]", concrete, j), plain, t)
				}
			}
			return
		}
		if i == len(steps) {
			visit(concrete, trail, v)
			return
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if steps[i] == "*" {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if t, ok := cross(plain, trail, k); ok {
					walk(m[k], i+1, concrete+"["+k+"]", plain+".*", t)
				}
			}
			return
		}
		if e, ok := m[steps[i]]; ok {
			walk(e, i+1, comparison.Join(concrete, steps[i]), comparison.Join(plain, steps[i]), trail)
		}
	}
	walk(v, 0, "", "", nil)
}

// stepNames holds the names Azure turns into resources to the Tenant's bounds.
func (r *Reconciler) stepNames(ctx context.Context, x *run) error {
	if o := r.admitNames(ctx, x.obj, x.id, x.body.desired); o != nil {
		return o
	}
	return nil
}
