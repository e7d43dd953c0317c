package kinds

import "github.com/aztenant/aztenant/reconcilers"

// All is every kind the operator serves, parents before children: the generated kinds
// whose parent is the subscription (a resource group, which has no OwnerKind) first, then
// the other generated ones, in the generator's order (each after its owners).
func All() []reconcilers.Kind {
	var top, rest []reconcilers.Kind
	for _, k := range Generated() {
		if k.Facts().OwnerKind.Empty() {
			top = append(top, k)
		} else {
			rest = append(rest, k)
		}
	}
	return append(top, rest...)
}
