package tenancy

import (
	"testing"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

func TestPatternsMayOverlap(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"team-a-*", "team-a-x-*", true},
		{"team-a-*", "team-b-*", false},
		{"*", "anything-*", true},
		{"team-a-*", "team-a-db", true},
		{"team-a-db", "team-a-web", false},
		{"shared", "shared", true},
		{"team-a-*-db", "team-a-*-web", false},
		{"team-a-*-db", "team-a-x-*", true},
		{"team-?", "team-ab", false},
		{"team-[ab]", "team-c*", true}, // character classes are not looked into: "may"
		{"team-[ab]", "team-a", true},
	}
	for _, c := range cases {
		if got := patternsMayOverlap(c.a, c.b); got != c.want {
			t.Errorf("patternsMayOverlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := patternsMayOverlap(c.b, c.a); got != c.want {
			t.Errorf("patternsMayOverlap(%q, %q) = %v, want %v (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestOverlapsOfNamesTheOwner(t *testing.T) {
	a := compile(tenant("team-a", nil))    // team-a-*
	ax := compile(tenant("team-a-x", nil)) // team-a-x-*
	b := compile(tenant("team-b", func(s *tenancyv1alpha1.TenantSpec) {
		s.ResourceGroups = []string{"team-a-*"}
		s.Subscriptions = []string{subB}
	}))
	got := overlapsOf(a, []*policy{a, ax, b})
	want := `"team-a-*" and Tenant "team-a-x"'s "team-a-x-*" can match the same resource groups: they belong to Tenant "team-a-x", whose pattern is more specific`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("overlaps of team-a = %q, want only %q (team-b is in another subscription)", got, want)
	}
}
