package kinds

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	sqlv1alpha1 "github.com/aztenant/aztenant/api/sql/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
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

	// A kind whose body needs its overlay's Desired (referenceType) is refused without it.
	ra := overlays[authorizationv1alpha1.RoleAssignmentGroupKind]
	without := ra
	without.Desired = nil
	overlays[authorizationv1alpha1.RoleAssignmentGroupKind] = without
	err = checkOverlays()
	overlays[authorizationv1alpha1.RoleAssignmentGroupKind] = ra
	if err == nil {
		t.Error("the RoleAssignment overlay without Desired was accepted")
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

// A storage account's firewall is sent with its IP rules, an empty list when the spec has
// none (so a rule added in the portal is drift); without a firewall, none is sent.
func TestStorageAccountSendsItsIPRules(t *testing.T) {
	var sa reconcilers.Kind
	for i, k := range Generated() {
		if generated[i].gk == storagev1alpha1.StorageAccountGroupKind {
			sa = k
		}
	}
	if sa == nil {
		t.Fatal("no StorageAccount in Generated")
	}
	obj := &storagev1alpha1.StorageAccount{Spec: storagev1alpha1.StorageAccountSpec{Owner: &azurev1alpha1.OwnerReference{Name: "rg"},
		Location: "westeurope", Kind: "StorageV2", Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"},
		NetworkAcls: &storagev1alpha1.NetworkRuleSet{DefaultAction: "Deny"}}}
	body, err := sa.Desired(obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	acls := body["properties"].(map[string]any)["networkAcls"].(map[string]any)
	if rules, ok := acls["ipRules"].([]any); !ok || len(rules) != 0 {
		t.Errorf("networkAcls sent %v, want an empty ipRules", acls)
	}
	obj.Spec.NetworkAcls.IPRules = []storagev1alpha1.IPRule{{Value: "203.0.113.7", Action: "Allow"}}
	body, _ = sa.Desired(obj, nil)
	if rules := body["properties"].(map[string]any)["networkAcls"].(map[string]any)["ipRules"].([]any); len(rules) != 1 {
		t.Errorf("ipRules sent %v, want the spec's one", rules)
	}
	obj.Spec.NetworkAcls = nil
	body, _ = sa.Desired(obj, nil)
	if props, _ := body["properties"].(map[string]any); props["networkAcls"] != nil {
		t.Errorf("networkAcls sent %v without a firewall in the spec", props["networkAcls"])
	}
}

// A role assignment's body: the principal read from its ConfigMap (fromConfig) or the
// spec's, the role's ID qualified with the resolved subscription, and nothing of the spec
// that is not Azure's (principalIdFromConfig, roleDefinitionReference).
func TestRoleAssignmentDesired(t *testing.T) {
	var k reconcilers.Kind
	for i, g := range Generated() {
		if generated[i].gk == authorizationv1alpha1.RoleAssignmentGroupKind {
			k = g
		}
	}
	if k == nil || k.Hooks().Verify == nil || k.Hooks().Resolve == nil || len(k.Facts().OutsideGroups) != 1 {
		t.Fatalf("RoleAssignment from Generated: %v, want its overlay's Verify, Resolve and OutsideGroups", k)
	}
	obj := &authorizationv1alpha1.RoleAssignment{Spec: authorizationv1alpha1.RoleAssignmentSpec{
		Owner:                   &authorizationv1alpha1.RoleAssignmentOwner{Name: "rg"},
		PrincipalIDFromConfig:   &azurev1alpha1.ConfigMapReference{Name: "ids", Key: "principalId"},
		RoleDefinitionReference: authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Reader"},
		Description:             "d",
	}}
	if _, err := k.Desired(obj, nil); err == nil {
		t.Error("a body without a principal was built")
	}
	body, err := k.Desired(obj, map[string]string{fromConfigKey("properties.principalId"): "11111111-2222-3333-4444-555555555555", resolvedSubscription: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"properties": map[string]any{"principalId": "11111111-2222-3333-4444-555555555555",
		"roleDefinitionId": "/subscriptions/sub/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
		"description":      "d"}}
	if !equalJSON(body, want) {
		t.Errorf("body %v, want %v", body, want)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
