package kinds

import (
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// FlexibleServersDatabase adapts Microsoft.DBforPostgreSQL/flexibleServers/databases.
type FlexibleServersDatabase struct{}

var _ reconcilers.Kind = FlexibleServersDatabase{}

func (FlexibleServersDatabase) New() azurev1alpha1.Resource {
	return &dbforpostgresqlv1alpha1.FlexibleServersDatabase{}
}
func (FlexibleServersDatabase) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.DBforPostgreSQL/flexibleServers/databases",
		APIVersion:   "2024-08-01",
		OwnerKind:    dbforpostgresqlv1alpha1.FlexibleServerGroupKind,
	}
}
func (FlexibleServersDatabase) Hooks() reconcilers.Hooks { return reconcilers.Hooks{} }

func (FlexibleServersDatabase) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
	sp := obj.(*dbforpostgresqlv1alpha1.FlexibleServersDatabase).Spec
	props := map[string]any{}
	putStr(props, "charset", sp.Charset)
	putStr(props, "collation", sp.Collation)
	return map[string]any{"properties": props}, nil
}

func (FlexibleServersDatabase) Observe(azurev1alpha1.Resource, map[string]any) {}
