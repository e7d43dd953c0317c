package model

import "testing"

// TestGroupDirAndGoPrefix: ASO's dotted groups (network.frontdoor) become a directory, a Go
// package name and an identifier prefix without dots; other groups keep their name.
func TestGroupDirAndGoPrefix(t *testing.T) {
	for _, c := range []struct{ name, dir, prefix string }{
		{"network", "network", "Network"},
		{"network.frontdoor", "networkfrontdoor", "NetworkFrontdoor"},
		{"dbforpostgresql", "dbforpostgresql", "Dbforpostgresql"},
	} {
		g := Group{Name: c.name}
		if got := g.Dir(); got != c.dir {
			t.Errorf("Group{%s}.Dir() = %q, want %q", c.name, got, c.dir)
		}
		if got := g.GoPrefix(); got != c.prefix {
			t.Errorf("Group{%s}.GoPrefix() = %q, want %q", c.name, got, c.prefix)
		}
	}
}
