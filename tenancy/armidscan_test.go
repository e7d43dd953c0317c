package tenancy

import (
	"reflect"
	"strings"
	"testing"
)

func TestFindARMIDs(t *testing.T) {
	subnet := "/subscriptions/" + subB + "/resourceGroups/team-b-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/default"
	zone := "/subscriptions/" + subA + "/resourceGroups/hub-dns/providers/Microsoft.Network/privateDnsZones/privatelink.blob.core.windows.net"
	tests := []struct {
		name, in string
		want     []string
	}{
		{"an ID", subnet, []string{subnet}},
		{"keywords in another casing", strings.ToUpper(subnet[:15]) + subnet[15:], []string{strings.ToUpper(subnet[:15]) + subnet[15:]}},
		{"a leading space", " " + subnet, []string{subnet}},
		{"a trailing newline", subnet + "\n", []string{subnet}},
		{"no leading slash", subnet[1:], []string{subnet}},
		{"a trailing slash", subnet + "/", []string{subnet}},
		{"in a URL", "https://management.azure.com" + subnet + "?api-version=2024-05-01", []string{subnet}},
		{"in a sentence", "use " + subnet + ", please", []string{subnet}},
		{"in XML", `<set-backend-service base-url="` + subnet + `" />`, []string{subnet}},
		{"percent-encoded", strings.ReplaceAll(subnet, "/", "%2F"), []string{subnet}},
		{"two lines", subnet + "\n" + zone, []string{subnet, zone}},
		{"two of them, a space between", subnet + " " + zone, []string{subnet, zone}},
		{"appended to a shared ID", zone + subnet, []string{zone + subnet, subnet}},
		{"a directory-rooted ID", "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
			[]string{"/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}},
		{"a subscription in braces", "/subscriptions/{" + subB + "}/resourceGroups/x", []string{"/subscriptions/{" + subB + "}/resourceGroups/x"}},
		{"a name with a space, whole", "/subscriptions/" + subA + "/resourceGroups/rg/providers/Microsoft.Cache/redis/my cache",
			[]string{"/subscriptions/" + subA + "/resourceGroups/rg/providers/Microsoft.Cache/redis/my cache",
				"/subscriptions/" + subA + "/resourceGroups/rg/providers/Microsoft.Cache/redis/my"}},
		{"a dot segment", "x " + subnet + "/../../other", []string{subnet + "/../../other"}},

		{"only the words", "see /subscriptions/ in the portal", nil},
		{"a subscription by name", "the subscriptions/billing and providers/google", nil},
		{"a longer word", "nosubscriptions/" + subB, nil},
		{"nothing", "10.0.0.0/16", nil},
		{"an API Management subscription in a text", "its /subscriptions/starter", nil},
		{"starts as an ID does", " /SUBSCRIPTIONS/x/resourceGroups/other", []string{"/SUBSCRIPTIONS/x/resourceGroups/other"}},
		{"starts as an ID does, no slash", "providers/foo", []string{"/providers/foo"}},
	}
	for _, tt := range tests {
		if got := FindARMIDs(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: FindARMIDs(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// Whatever FindARMIDs returns for a string holding a valid ID with text
// around it includes that ID: an ID cannot hide from the guard.
func FuzzFindARMIDs(f *testing.F) {
	id := "/subscriptions/" + subB + "/resourceGroups/team-b-net"
	f.Add(" ", "")
	f.Add("x", "/")
	f.Add("%2F", "?a=b")
	f.Add("<a href='", "'>")
	f.Fuzz(func(t *testing.T, before, after string) {
		s := before + id + after
		found := FindARMIDs(s)
		if !boundary(before) || !endsCleanly(after) {
			return // text that runs into the ID makes another path; it is still found below
		}
		for _, p := range found {
			if strings.Contains(strings.ToLower(p), strings.ToLower(id)) {
				return
			}
		}
		t.Errorf("FindARMIDs(%q) = %q: %s not found", s, found, id)
	})
}

func boundary(before string) bool { return before == "" || boundaryBefore(before+"s", len(before)) }

func endsCleanly(after string) bool {
	return after == "" || endsPath([]rune(after)[0]) || after[0] == '/'
}
