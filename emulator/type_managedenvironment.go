package emulator

import (
	"fmt"

	"github.com/aztenant/aztenant/emulator/armpath"
)

// managedEnvironmentBehaviour: a Container Apps environment's infrastructure resource
// group. Container Apps creates it, named by infrastructureResourceGroup (the REST spec's
// example ManagedEnvironments_CustomInfrastructureResourceGroup_Create.json, in
// Azure/azure-rest-api-specs specification/app/resource-manager/Microsoft.App/stable/2024-03-01/examples,
// answers the name asked for) or ME_<environment>_<group>_<location> by default (what
// `az containerapp env show` answers, e.g. "ME_env-aca_rg-aca-az-cli_francecentral"),
// "in the same subscription as the subnet" when a subnet is given (the property's doc in
// the SDK and REST spec), else in the environment's. The environment's GET answers its
// name; the group goes with the environment. Nothing says Container Apps refuses an
// existing group: one that exists is left as it is, and not deleted.
func managedEnvironmentBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.App/managedEnvironments",
		prepare: func(w *writeRequest) *apiError {
			rg := armpath.Parse(w.target.id).ResourceGroup()
			return w.checkManagedGroup("infrastructureResourceGroup", infrastructureSubscription(w.props, w.subscriptionID), func() string {
				return fmt.Sprintf("ME_%s_%s_%s", w.target.name, rg, w.location())
			}, false)
		},
		stored: func(e *Emulator, r *resource) {
			e.ensureManagedGroupLocked(infrastructureResourceGroup(r), str(r.body, "location"), r.id)
		},
		removed: func(e *Emulator, r *resource) { e.removeManagedGroupLocked(infrastructureResourceGroup(r), r.id) },
	}
}

// infrastructureSubscription is the subscription of the environment's subnet, if it
// names one, else own.
func infrastructureSubscription(props map[string]any, own string) string {
	if vnet, ok := props["vnetConfiguration"].(map[string]any); ok {
		if sub := subscriptionOfID(str(vnet, "infrastructureSubnetId")); sub != "" {
			return sub
		}
	}
	return own
}

func infrastructureResourceGroup(r *resource) managedGroup {
	p := r.props()
	return managedGroup{infrastructureSubscription(p, subscriptionOfID(r.id)), str(p, "infrastructureResourceGroup")}
}
