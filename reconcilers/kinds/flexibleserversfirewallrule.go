package kinds

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
)

// FlexibleServersFirewallRule adapts
// Microsoft.DBforPostgreSQL/flexibleServers/firewallRules.
type FlexibleServersFirewallRule struct{}

func (FlexibleServersFirewallRule) New() azurev1alpha1.Resource {
	return &dbforpostgresqlv1alpha1.FlexibleServersFirewallRule{}
}
func (FlexibleServersFirewallRule) ResourceType() string {
	return "Microsoft.DBforPostgreSQL/flexibleServers/firewallRules"
}
func (FlexibleServersFirewallRule) APIVersion() string { return "2024-08-01" }
func (FlexibleServersFirewallRule) OwnerKind() schema.GroupKind {
	return dbforpostgresqlv1alpha1.FlexibleServerGroupKind
}

func (FlexibleServersFirewallRule) Desired(obj azurev1alpha1.Resource) (map[string]any, error) {
	sp := obj.(*dbforpostgresqlv1alpha1.FlexibleServersFirewallRule).Spec
	return map[string]any{"properties": map[string]any{"startIpAddress": sp.StartIPAddress, "endIpAddress": sp.EndIPAddress}}, nil
}

func (FlexibleServersFirewallRule) Observe(azurev1alpha1.Resource, map[string]any) {}
