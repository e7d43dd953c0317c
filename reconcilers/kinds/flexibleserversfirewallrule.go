package kinds

import (
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// FlexibleServersFirewallRule adapts
// Microsoft.DBforPostgreSQL/flexibleServers/firewallRules.
type FlexibleServersFirewallRule struct{}

var _ reconcilers.Kind = FlexibleServersFirewallRule{}

func (FlexibleServersFirewallRule) New() azurev1alpha1.Resource {
	return &dbforpostgresqlv1alpha1.FlexibleServersFirewallRule{}
}
func (FlexibleServersFirewallRule) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.DBforPostgreSQL/flexibleServers/firewallRules",
		APIVersion:   "2024-08-01",
		OwnerKind:    dbforpostgresqlv1alpha1.FlexibleServerGroupKind,
	}
}
func (FlexibleServersFirewallRule) Hooks() reconcilers.Hooks { return reconcilers.Hooks{} }

func (FlexibleServersFirewallRule) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
	sp := obj.(*dbforpostgresqlv1alpha1.FlexibleServersFirewallRule).Spec
	return map[string]any{"properties": map[string]any{"startIpAddress": sp.StartIPAddress, "endIpAddress": sp.EndIPAddress}}, nil
}

func (FlexibleServersFirewallRule) Observe(azurev1alpha1.Resource, map[string]any) {}
