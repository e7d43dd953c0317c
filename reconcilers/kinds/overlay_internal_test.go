package kinds

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	sqlv1alpha1 "github.com/aztenant/aztenant/api/sql/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// Every overlay amends a kind kindgen writes (a renamed or removed kind leaves none
// behind), and Generated hands out the amended kind.
func TestEveryOverlayNamesAGeneratedKind(t *testing.T) {
	if err := checkOverlays(); err != nil {
		t.Fatal(err)
	}
	overlays[schema.GroupKind{Group: "sql.aztenant.io", Kind: "NoSuchKind"}] = Overlay{}
	err := checkOverlays()
	delete(overlays, schema.GroupKind{Group: "sql.aztenant.io", Kind: "NoSuchKind"})
	if err == nil {
		t.Error("an overlay of no generated kind was accepted")
	}

	var db reconcilers.Kind
	for i, k := range Generated() {
		if generated[i].gk == sqlv1alpha1.ServersDatabaseGroupKind {
			db = k
		}
	}
	if db == nil || db.Hooks().Equivalent == nil {
		t.Fatalf("ServersDatabase from Generated: %v, want its overlay's Equivalent", db)
	}
	if db.Hooks().Resolve == nil || db.Facts().ResourceType != "Microsoft.Sql/servers/databases" {
		t.Error("the overlay lost the generated hooks or facts")
	}
}

// The SKU names Azure SQL answers for the one a spec gives.
func TestSQLSkuNameEquivalent(t *testing.T) {
	for _, c := range []struct {
		path, desired, observed string
		want                    bool
	}{
		{"sku.name", "BC", "BC_Gen4", true},        // CreateVCoreDatabaseByServiceObjective.json
		{"sku.name", "HS_Gen5_4", "HS_Gen5", true}, // HyperscaleElasticPoolCreateOrUpdateSetHighAvailabilityReplicaCount.json
		{"sku.name", "gp", "GP_Gen5", true},
		{"sku.name", "GP_Gen5", "GP_Gen5_2", false}, // Azure drops a capacity, never adds one
		{"sku.name", "GP", "GP_Gen5_2", false},
		{"sku.name", "BC_Gen4", "BC_Gen5", false},
		{"sku.name", "S0", "S1", false},
		{"sku.name", "HS_Gen5_x", "HS_Gen5", false},
		{"sku.tier", "BC", "BC_Gen4", false},
	} {
		if got := sqlSkuNameEquivalent(c.path, c.desired, c.observed); got != c.want {
			t.Errorf("%s %q answered %q: equivalent %v, want %v", c.path, c.desired, c.observed, got, c.want)
		}
	}
}
