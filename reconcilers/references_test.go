package reconcilers

import (
	"reflect"
	"testing"

	"github.com/aztenant/aztenant/tenancy"
)

func TestARMReferences(t *testing.T) {
	const sub = "/subscriptions/5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c"
	subnet := sub + "/resourceGroups/hub/providers/Microsoft.Network/virtualNetworks/hub/subnets/default"
	uai := sub + "/resourceGroups/ids/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app"
	role := sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	body := map[string]any{
		"location": "westeurope",
		"tags":     map[string]any{"source": subnet}, // the user's words
		"identity": map[string]any{"type": "UserAssigned", "userAssignedIdentities": map[string]any{uai: map[string]any{}}},
		"properties": map[string]any{
			"ipConfigurations": []any{
				map[string]any{"name": "a", "properties": map[string]any{"subnet": map[string]any{"id": subnet}}},
				map[string]any{"name": "b", "properties": map[string]any{"privateIPAddress": "10.0.0.4"}},
			},
			// A field nobody flagged as a reference is bounded all the same.
			"restoreSource":    "/SUBSCRIPTIONS/x/resourceGroups/other",
			"roleDefinitionId": role,
			"description":      "see /subscriptions/ in the portal",
			"directory":        "/providers/Microsoft.Management/managementGroups/root",
		},
	}
	got := armReferences(body, []string{"properties.roleDefinitionId"})
	want := []tenancy.Reference{
		{Path: "identity.userAssignedIdentities", ARMID: uai},
		{Path: "properties.directory", ARMID: "/providers/Microsoft.Management/managementGroups/root"},
		{Path: "properties.ipConfigurations[0].properties.subnet.id", ARMID: subnet},
		{Path: "properties.restoreSource", ARMID: "/SUBSCRIPTIONS/x/resourceGroups/other"},
		{Path: "properties.roleDefinitionId", ARMID: role, OutsideGroups: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("armReferences =\n%+v\nwant\n%+v", got, want)
	}
}
