package comparison

import (
	"encoding/json"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Each entry of the normalisation table takes Azure's answer for the spec's
// value and the spec's for Azure's (both ways), and tells a real change from
// a respelling. The pairs are Azure's documented examples where there is one
// (emulator/answers/zz_generated_*.json).
func TestNormalizers(t *testing.T) {
	const (
		apimService = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg1/providers/Microsoft.ApiManagement/service/apimService1"
		// ApiManagementCreateApiPolicy.json: sent, and answered.
		policySent     = "<policies> <inbound /> <backend>    <forward-request />  </backend>  <outbound /></policies>"
		policyAnswered = "<policies>\r\n  <inbound />\r\n  <backend>\r\n    <forward-request />\r\n  </backend>\r\n  <outbound />\r\n</policies>"
		// RoleAssignments_CreateForSubscription.json: sent, and answered.
		roleSent     = "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Microsoft.Authorization/roleDefinitions/0b5fe924-9a61-425c-96af-cfe6e287ca2d"
		roleAnswered = "/providers/Microsoft.Authorization/roleDefinitions/0b5fe924-9a61-425c-96af-cfe6e287ca2d"
	)
	mongoTypes := []string{"BuiltInRole", "CustomRole"}
	cases := []struct {
		name, entry string
		values      []string
		spec, azure any
		same        bool
	}{
		{"enum casing", NormalizeCase, nil, "disabled", "Disabled", true},
		{"ARM ID casing (createVault.json)", NormalizeCase, nil, "/subscriptions/subid/resourceGroups/rg1/providers/Microsoft.Network/virtualNetworks/test-vnet/subnets/subnet1", "/subscriptions/subid/resourcegroups/rg1/providers/microsoft.network/virtualnetworks/test-vnet/subnets/subnet1", true},
		{"another value", NormalizeCase, nil, "Enabled", "Disabled", false},
		{"not a string", NormalizeCase, nil, "1", 1.0, false},

		{"display name (CosmosDBDatabaseAccountCreateMin.json)", NormalizeLocation, nil, "southcentralus", "South Central US", true},
		{"display name of location", NormalizeLocation, nil, "westus", "West US", true},
		{"another region", NormalizeLocation, nil, "westus", "West US 2", false},

		{"re-indented (ApiManagementCreateApiPolicy.json)", NormalizeXML, nil, policySent, policyAnswered, true},
		{"attributes in another order, empty element spelled out", NormalizeXML, nil,
			`<policies><inbound><set-header name="a" exists-action="override"/></inbound></policies>`,
			"<policies>\n  <inbound>\n    <set-header exists-action=\"override\" name=\"a\"></set-header>\n  </inbound>\n</policies>", true},
		{"C# expression that does not parse, re-indented", NormalizeXML, nil,
			"<policies><inbound><set-variable name=\"x\" value=\"1\" />@(1 < 2)</inbound></policies>",
			"<policies>\r\n  <inbound>\r\n    <set-variable name=\"x\" value=\"1\" />\r\n    @(1 < 2)\r\n  </inbound>\r\n</policies>", true},
		{"an element removed", NormalizeXML, nil, policySent, "<policies><inbound /><outbound /></policies>", false},
		{"an attribute changed", NormalizeXML, nil, `<rate-limit calls="5" renewal-period="15" />`, `<rate-limit calls="10" renewal-period="15" />`, false},
		{"text changed", NormalizeXML, nil, `<a>one</a>`, `<a>two</a>`, false},

		{"fragment root dropped (ApiManagementCreatePolicyFragment.json)", NormalizeXMLFragment, nil,
			`<fragment><json-to-xml apply="always" consider-accept-header="false" /></fragment>`,
			`<json-to-xml apply="always" consider-accept-header="false" />`, true},
		{"fragment re-indented", NormalizeXMLFragment, nil, "<fragment> <a /> </fragment>", "<fragment>\r\n  <a />\r\n</fragment>", true},
		{"fragment changed", NormalizeXMLFragment, nil, `<fragment><a x="1" /></fragment>`, `<a x="2" />`, false},

		{"leading slash dropped", NormalizeTrimSlash, nil, "/echo", "echo", true},
		{"another path", NormalizeTrimSlash, nil, "/echo", "echo2", false},

		{"relative scope answered as ARM ID", NormalizeAPIMScope, nil, "/apis", apimService + "/apis", true},
		{"product scope (ApiManagementCreateSubscription.json)", NormalizeAPIMScope, nil, "/products/5600b59475ff190048060002", apimService + "/products/5600b59475ff190048060002", true},
		{"another scope", NormalizeAPIMScope, nil, "/apis", apimService + "/products/starter", false},

		{"tenant scope answered (RoleAssignments_CreateForSubscription.json)", NormalizeRoleDefinitionID, nil, roleSent, roleAnswered, true},
		{"another role", NormalizeRoleDefinitionID, nil, roleSent, "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7", false},

		{"address answered as its range (createVaultWithNetworkAcls.json)", NormalizeCIDR, nil, "124.56.78.91", "124.56.78.91/32", true},
		{"range answered as sent", NormalizeCIDR, nil, "10.91.4.0/24", "10.91.4.0/24", true},
		{"IPv6 address and its range", NormalizeCIDR, nil, "2001:db8::1", "2001:db8::1/128", true},
		{"another address", NormalizeCIDR, nil, "124.56.78.91", "124.56.78.92/32", false},
		{"a wider range", NormalizeCIDR, nil, "124.56.78.91", "124.56.78.0/24", false},
		{"not an address", NormalizeCIDR, nil, "any", "any", true},
		{"index of CustomRole", NormalizeIntEnum, mongoTypes, "CustomRole", 1.0, true},
		{"index of BuiltInRole", NormalizeIntEnum, mongoTypes, "BuiltInRole", json.Number("0"), true},
		{"value as a string", NormalizeIntEnum, mongoTypes, "CustomRole", "customRole", true},
		{"another index", NormalizeIntEnum, mongoTypes, "CustomRole", 0.0, false},
		{"index beyond the values", NormalizeIntEnum, mongoTypes, "CustomRole", 2.0, false},
		{"not a whole number", NormalizeIntEnum, mongoTypes, "CustomRole", 1.5, false},
	}
	tried := map[string][2]bool{}
	for _, c := range cases {
		n := Normalizer{Name: c.entry, Values: c.values}
		if got := n.same(c.spec, c.azure); got != c.same {
			t.Errorf("%s: %s(%v, Azure %v) = %v, want %v", c.name, c.entry, c.spec, c.azure, got, c.same)
		}
		if got := n.same(c.azure, c.spec); got != c.same {
			t.Errorf("%s: %s the other way (%v, %v) = %v, want %v", c.name, c.entry, c.azure, c.spec, got, c.same)
		}
		seen := tried[c.entry]
		if c.same {
			seen[0] = true
		} else {
			seen[1] = true
		}
		tried[c.entry] = seen
	}
	for name := range normalizations {
		if tried[name] != [2]bool{true, true} {
			t.Errorf("entry %s: no case of a match and of a non-match", name)
		}
	}
	if (Normalizer{Name: "nonesuch"}).same("a", "a") {
		t.Error("an entry the table lacks matched")
	}
	// The location entry holds for the region table: every display name is its
	// name spelled with spaces and capitals.
	for _, l := range azurev1alpha1.Locations {
		if !(Normalizer{Name: NormalizeLocation}).same(l.Name, l.DisplayName) {
			t.Errorf("location %s: its display name %q does not normalise to it", l.Name, l.DisplayName)
		}
	}
}

// The comparison applies a kind's facts about answers at their paths, lists
// crossed, and nowhere else.
func TestNormalizeInComparison(t *testing.T) {
	body := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	facts := Rules{
		Normalize: map[string]Normalizer{
			"properties.locations.locationName": {Name: NormalizeLocation},
			"properties.type":                   {Name: NormalizeIntEnum, Values: []string{"BuiltInRole", "CustomRole"}},
			"properties.policies.*.value":       {Name: NormalizeXML},
		},
		NotReturned: []string{"location", "properties.options"},
		OpenValues: map[string][]any{
			"properties.indexingPolicy.excludedPaths": {map[string]any{"path": `/"_etag"/?`}},
		},
	}
	cases := []struct {
		name, desired, actual, want string
	}{
		{"location names in a list", `{"properties":{"locations":[{"locationName":"southcentralus","failoverPriority":0}]}}`,
			`{"properties":{"locations":[{"locationName":"South Central US","failoverPriority":0,"id":"a-southcentralus"}]}}`, ""},
		{"another location in the list", `{"properties":{"locations":[{"locationName":"southcentralus"}]}}`,
			`{"properties":{"locations":[{"locationName":"East US"}]}}`, "properties.locations[0].locationName"},
		{"integer enum", `{"properties":{"type":"CustomRole"}}`, `{"properties":{"type":1}}`, ""},
		{"integer enum of another value", `{"properties":{"type":"CustomRole"}}`, `{"properties":{"type":0}}`, "properties.type"},
		{"XML under a map's values", `{"properties":{"policies":{"p1":{"value":"<a> <b /> </a>"}}}}`, `{"properties":{"policies":{"p1":{"value":"<a>\n  <b />\n</a>"}}}}`, ""},
		{"not returned", `{"location":"westus","properties":{"options":{"throughput":400},"resource":{"id":"db"}}}`, `{"properties":{"resource":{"id":"db","_rid":"x"}}}`, ""},
		{"not returned, but answered otherwise", `{"properties":{"options":{"throughput":400}}}`, `{"properties":{"options":{"throughput":500}}}`, "properties.options.throughput"},
		{"a returned value changed beside", `{"location":"westus","properties":{"resource":{"id":"db"}}}`, `{"properties":{"resource":{"id":"other"}}}`, "properties.resource.id"},
		{"element Azure adds", `{"properties":{"indexingPolicy":{"excludedPaths":[{"path":"/a/*"}]}}}`,
			`{"properties":{"indexingPolicy":{"excludedPaths":[{"path":"/a/*"},{"path":"/\"_etag\"/?"}]}}}`, ""},
		{"element Azure adds, the spec holding it", `{"properties":{"indexingPolicy":{"excludedPaths":[{"path":"/\"_etag\"/?"}]}}}`,
			`{"properties":{"indexingPolicy":{"excludedPaths":[{"path":"/\"_etag\"/?"}]}}}`, ""},
		{"another element", `{"properties":{"indexingPolicy":{"excludedPaths":[{"path":"/a/*"}]}}}`,
			`{"properties":{"indexingPolicy":{"excludedPaths":[{"path":"/a/*"},{"path":"/b/*"}]}}}`, "properties.indexingPolicy.excludedPaths"},
		{"the spec's element gone", `{"properties":{"indexingPolicy":{"excludedPaths":[{"path":"/a/*"}]}}}`,
			`{"properties":{"indexingPolicy":{"excludedPaths":[{"path":"/\"_etag\"/?"}]}}}`, "properties.indexingPolicy.excludedPaths"},
	}
	for _, c := range cases {
		d, a := body(c.desired), body(c.actual)
		if got := Drift(d, a, facts); got != c.want {
			t.Errorf("%s: drift %q, want %q", c.name, got, c.want)
		}
		all := Differences(d, a, facts)
		if (len(all) == 0) != (c.want == "") {
			t.Errorf("%s: differences %v, want %q", c.name, all, c.want)
		}
		// (The spec holding the element Azure adds matches without the facts too.)
		if c.want == "" && !strings.Contains(c.name, "the spec holding it") && Drift(d, a, Rules{}) == "" {
			t.Errorf("%s: matches without the facts too, so it tests nothing", c.name)
		}
	}
}
