package emit

import (
	"slices"
	"testing"
)

func TestWithMarkers(t *testing.T) {
	got := withMarkers(
		[]string{"+kubebuilder:validation:MaxLength=260", "+kubebuilder:validation:Enum=a;b", `+kubebuilder:validation:XValidation:rule="self == 'a'",message="m"`},
		[]string{"MaxLength=63", `XValidation:rule="self == oldSelf",message="immutable"`})
	want := []string{"+kubebuilder:validation:Enum=a;b", `+kubebuilder:validation:XValidation:rule="self == 'a'",message="m"`,
		"+kubebuilder:validation:MaxLength=63", `+kubebuilder:validation:XValidation:rule="self == oldSelf",message="immutable"`}
	if !slices.Equal(got, want) {
		t.Errorf("withMarkers:\n got %q\nwant %q", got, want)
	}
	// A list's element bounds replace the generator's element bounds, not the list's.
	got = withMarkers([]string{"+kubebuilder:validation:MaxItems=5", "+kubebuilder:validation:items:MaxLength=260"},
		[]string{"items:MaxLength=600"})
	want = []string{"+kubebuilder:validation:MaxItems=5", "+kubebuilder:validation:items:MaxLength=600"}
	if !slices.Equal(got, want) {
		t.Errorf("withMarkers of items:\n got %q\nwant %q", got, want)
	}
}

func TestNameNoun(t *testing.T) {
	for armType, want := range map[string]string{
		"Microsoft.DBforPostgreSQL/flexibleServers/databases":     "database",
		"Microsoft.DBforPostgreSQL/flexibleServers/firewallRules": "firewall rule",
		"Microsoft.Resources/resourceGroups":                      "resource group",
		"Microsoft.Network/dnsZones/recordSets":                   "record set",
		"Microsoft.KeyVault/vaults/accessPolicies":                "access policy",
		"Microsoft.Cache/redis":                                   "redis",
		"Microsoft.Network/ipGroups":                              "ip group",
	} {
		if got := nameNoun(armType); got != want {
			t.Errorf("nameNoun(%s) = %q, want %q", armType, got, want)
		}
	}
	if article("ip group") != "an ip group" || article("database") != "a database" {
		t.Error("article")
	}
}
