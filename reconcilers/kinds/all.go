package kinds

import "github.com/aztenant/aztenant/reconcilers"

// All is every kind the operator serves, parents before children.
func All() []reconcilers.Kind {
	return append([]reconcilers.Kind{
		ResourceGroup{},
		FlexibleServer{},
		ManagedCluster{},
		// Last: a role assignment's scope may be any other kind.
		RoleAssignment{},
	}, Generated()...)
}
