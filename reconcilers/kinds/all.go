package kinds

import "github.com/aztenant/aztenant/reconcilers"

// All is every kind the operator serves, parents before children: the generated kinds
// whose parent is the subscription (a resource group, which has no OwnerKind) first, then
// the hand-written kinds, then the other generated ones.
func All() []reconcilers.Kind {
	var top, rest []reconcilers.Kind
	for _, k := range Generated() {
		if k.Facts().OwnerKind.Empty() {
			top = append(top, k)
		} else {
			rest = append(rest, k)
		}
	}
	hand := []reconcilers.Kind{
		ManagedCluster{},
	}
	return append(append(top, hand...), rest...)
}
