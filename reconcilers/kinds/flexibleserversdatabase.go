package kinds

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
)

// FlexibleServersDatabase adapts Microsoft.DBforPostgreSQL/flexibleServers/databases.
type FlexibleServersDatabase struct{}

func (FlexibleServersDatabase) New() azurev1alpha1.Resource {
	return &dbforpostgresqlv1alpha1.FlexibleServersDatabase{}
}
func (FlexibleServersDatabase) ResourceType() string {
	return "Microsoft.DBforPostgreSQL/flexibleServers/databases"
}
func (FlexibleServersDatabase) APIVersion() string { return "2024-08-01" }
func (FlexibleServersDatabase) OwnerKind() schema.GroupKind {
	return dbforpostgresqlv1alpha1.FlexibleServerGroupKind
}

func (FlexibleServersDatabase) Desired(obj azurev1alpha1.Resource) (map[string]any, error) {
	sp := obj.(*dbforpostgresqlv1alpha1.FlexibleServersDatabase).Spec
	props := map[string]any{}
	putStr(props, "charset", sp.Charset)
	putStr(props, "collation", sp.Collation)
	return map[string]any{"properties": props}, nil
}

func (FlexibleServersDatabase) Observe(azurev1alpha1.Resource, map[string]any) {}
