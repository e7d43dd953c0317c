package tenancy

import (
	"flag"
	"testing"
)

func TestParseServeMode(t *testing.T) {
	tests := []struct {
		in, want string
		requires bool
		wantErr  bool
	}{
		{in: "", want: "tenants", requires: true},
		{in: "tenants", want: "tenants", requires: true},
		{in: "all", want: "all"},
		{in: "team-b, team-a,team-b", want: "team-a,team-b"},
		{in: "team-a", want: "team-a"},
		{in: "Team_A", wantErr: true},
		{in: ",", wantErr: true},
	}
	for _, tt := range tests {
		m, err := ParseServeMode(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseServeMode(%q) = %v, want error", tt.in, m)
			}
			continue
		}
		if err != nil || m.String() != tt.want || m.RequiresTenant() != tt.requires {
			t.Errorf("ParseServeMode(%q) = %q (requires tenant %v), %v; want %q (%v)", tt.in, m, m.RequiresTenant(), err, tt.want, tt.requires)
		}
	}
}

func TestServeModeIsAFlag(t *testing.T) {
	var m ServeMode
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.Var(&m, "served-namespaces", "tenants, all, or a comma-separated list")
	if err := fs.Parse([]string{"--served-namespaces=a,b"}); err != nil {
		t.Fatal(err)
	}
	if got := m.Namespaces(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("Namespaces() = %v", got)
	}
	if ServeTenants().Namespaces() != nil {
		t.Fatal("tenants mode has an explicit list")
	}
}
