package kinds

import (
	"reflect"
	"testing"
)

// A generated spec's user-assigned identities, a list of references, go to ARM as its map
// keyed by the identities' ARM IDs: one by ARM ID as given, one by name resolved as a
// UserAssignedIdentity of managedidentity.aztenant.io unless it names its kind.
func TestUserAssignedIdentitiesAsARMMap(t *testing.T) {
	const given = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/given"
	const named = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app"
	shape := &armShape{props: []string{"sku"}, fields: map[string]*armShape{"identity": {identities: []string{"userAssignedIdentities"}}}}
	spec := map[string]any{"sku": "Basic", "identity": map[string]any{"type": "UserAssigned", "userAssignedIdentities": []any{
		map[string]any{"reference": map[string]any{"armId": given}},
		map[string]any{"reference": map[string]any{"name": "app"}},
	}}}
	resolved := map[string]string{referenceKey(identityGroup, identityKind, "app"): named}
	body, err := specBodyWith(spec, shape, "containerregistry.aztenant.io", resolved)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"properties": map[string]any{"sku": "Basic"}, "identity": map[string]any{"type": "UserAssigned",
		"userAssignedIdentities": map[string]any{given: map[string]any{}, named: map[string]any{}}}}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("body %v, want %v", body, want)
	}
	if _, err := specBodyWith(spec, shape, "containerregistry.aztenant.io", nil); err == nil {
		t.Error("an identity by name was sent unresolved")
	}
}
