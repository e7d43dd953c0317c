package onboarding

import (
	"slices"
	"strings"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// Kinds of created resources, in the order offboarding deletes them.
const (
	KindIdentity            = "Identity"
	KindServiceAccount      = "ServiceAccount"
	KindRoleAssignment      = "RoleAssignment"
	KindFederatedCredential = "FederatedCredential"
	KindManagedIdentity     = "ManagedIdentity"
	KindResourceGroup       = "ResourceGroup"
)

var deleteOrder = []string{KindIdentity, KindServiceAccount, KindRoleAssignment, KindFederatedCredential, KindManagedIdentity, KindResourceGroup}

// record is the set of what onboarding created, as kept in status.
type record struct {
	items []tenancyv1alpha1.CreatedResource
}

func newRecord(st *tenancyv1alpha1.OnboardingStatus) *record {
	r := &record{}
	if st != nil {
		r.items = slices.Clone(st.Created)
	}
	return r
}

func (r *record) add(ns, kind, id string) {
	if r.has(kind, id) {
		return
	}
	r.items = append(r.items, tenancyv1alpha1.CreatedResource{Namespace: ns, Kind: kind, ID: id})
}

func (r *record) has(kind, id string) bool {
	return slices.ContainsFunc(r.items, func(c tenancyv1alpha1.CreatedResource) bool {
		return c.Kind == kind && strings.EqualFold(c.ID, id)
	})
}

func (r *record) remove(kind, id string) {
	r.items = slices.DeleteFunc(r.items, func(c tenancyv1alpha1.CreatedResource) bool {
		return c.Kind == kind && strings.EqualFold(c.ID, id)
	})
}

// namespaces returns the namespaces with something recorded, sorted.
func (r *record) namespaces() []string {
	var out []string
	for _, c := range r.items {
		if c.Namespace != "" && !slices.Contains(out, c.Namespace) {
			out = append(out, c.Namespace)
		}
	}
	slices.Sort(out)
	return out
}

// of returns the namespace's recorded items (ns "" for resource groups) in
// deletion order.
func (r *record) of(ns string) []tenancyv1alpha1.CreatedResource {
	var out []tenancyv1alpha1.CreatedResource
	for _, kind := range deleteOrder {
		for _, c := range r.items {
			if c.Namespace == ns && c.Kind == kind {
				out = append(out, c)
			}
		}
	}
	return out
}

// sorted returns the items in a stable order (per namespace, in creation
// order), so an unchanged record is an unchanged status.
func (r *record) sorted() []tenancyv1alpha1.CreatedResource {
	out := slices.Clone(r.items)
	slices.SortFunc(out, func(a, b tenancyv1alpha1.CreatedResource) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		if c := slices.Index(deleteOrder, b.Kind) - slices.Index(deleteOrder, a.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
