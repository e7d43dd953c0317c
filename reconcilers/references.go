package reconcilers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
	"github.com/aztenant/aztenant/tenancy"
)

// This file holds a request's references to other Azure resources inside the
// Tenant's bounds (step 2 of the flow, doc.go), before any ARM call.

// ReferenceGuard admits the ARM IDs a request refers to besides the resource it
// writes (tenancy.Guard does, against the Tenant).
type ReferenceGuard interface {
	AdmitReferences(ctx context.Context, obj client.Object, refs []tenancy.Reference) error
}

// armReferences lists every ARM ID in body: in the string values, and in the
// map keys (identity.userAssignedIdentities is keyed by ID), however they are
// spelled (tenancy.FindARMIDs: spaces, no leading slash, another casing,
// embedded in a longer text, percent-encoded), whatever field holds them. A
// field the generator did not know for a reference is bounded all the same,
// and an ID-like text that does not parse is refused by the guard, naming the
// field. Tags are the user's words, not references. Paths are dotted with list
// indexes ("properties.ipConfigurations[0].properties.subnet.id"); outside
// lists the kind's Facts.OutsideGroups paths (without indexes).
func armReferences(body map[string]any, outside []string) []tenancy.Reference {
	var out []tenancy.Reference
	var walk func(path, plain string, v any)
	add := func(path, plain, s string) bool {
		ids := tenancy.FindARMIDs(s)
		for _, id := range ids {
			out = append(out, tenancy.Reference{Path: path, ARMID: id, OutsideGroups: containsFold(outside, plain)})
		}
		return len(ids) > 0
	}
	walk = func(path, plain string, v any) {
		switch t := v.(type) {
		case string:
			add(path, plain, t)
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if path == "" && k == "tags" {
					continue
				}
				if add(path, plain, k) {
					walk(path+"["+k+"]", plain, t[k])
					continue
				}
				walk(comparison.Join(path, k), comparison.Join(plain, k), t[k])
			}
		case []any:
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", path, i), plain, e)
			}
		}
	}
	walk("", "", body)
	return out
}

func containsFold(list []string, s string) bool {
	for _, e := range list {
		if strings.EqualFold(e, s) {
			return true
		}
	}
	return false
}

// admitReferences asks the ReferenceGuard about every ARM ID desired refers to
// and an owner given by ARM ID. A user-assigned identity counts as the
// namespace's when one of its UserAssignedIdentity objects manages it.
func (r *Reconciler) admitReferences(ctx context.Context, obj azurev1alpha1.Resource, desired map[string]any) *Outcome {
	if r.ReferenceGuard == nil {
		return nil
	}
	refs := armReferences(desired, r.Kind.Facts().OutsideGroups)
	if o := obj.Owner(); o != nil && o.ARMID != "" {
		refs = append(refs, tenancy.Reference{Path: "spec.owner.armId", ARMID: o.ARMID})
	}
	if len(refs) == 0 {
		return nil
	}
	var owned map[string]bool
	for i := range refs {
		if !isIdentityID(refs[i].ARMID) {
			continue
		}
		if owned == nil {
			var err error
			if owned, err = r.namespaceIdentities(ctx, obj.GetNamespace()); err != nil {
				return newOutcome(ReasonGuardFailed, "could not list the namespace's UserAssignedIdentities to check the identities the request names: "+err.Error())
			}
		}
		refs[i].Owned = owned[strings.ToLower(strings.TrimSuffix(refs[i].ARMID, "/"))]
	}
	err := r.ReferenceGuard.AdmitReferences(ctx, obj, refs)
	return guardOutcome(err)
}

func isIdentityID(id string) bool {
	p, err := tenancy.ParseARMID(id)
	return err == nil && strings.EqualFold(p.Type, "Microsoft.ManagedIdentity/userAssignedIdentities")
}

// namespaceIdentities are the ARM IDs (lower-case) of the UserAssignedIdentity
// objects of namespace that have one. Without the kind installed, there are none.
func (r *Reconciler) namespaceIdentities(ctx context.Context, namespace string) (map[string]bool, error) {
	var list managedidentityv1alpha1.UserAssignedIdentityList
	if err := r.Client.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		if meta.IsNoMatchError(err) {
			return map[string]bool{}, nil
		}
		return nil, err
	}
	out := make(map[string]bool, len(list.Items))
	for i := range list.Items {
		if id := list.Items[i].Status.ID; id != "" {
			out[strings.ToLower(id)] = true
		}
	}
	return out, nil
}

// stepReferences holds every other ARM ID the body names to the Tenant's bounds.
func (r *Reconciler) stepReferences(ctx context.Context, x *run) error {
	if o := r.admitReferences(ctx, x.obj, x.body.desired); o != nil {
		return o
	}
	return nil
}
