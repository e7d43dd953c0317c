package tenancy

import (
	"context"
	"errors"
	"reflect"
	"testing"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

func TestTenantFor(t *testing.T) {
	tests := []struct {
		ns       string
		want     string
		conflict []string
		none     bool
	}{
		{ns: "team-a", want: "team-a"},
		{ns: "b-1", want: "team-b"},
		{ns: "b-2", want: "team-b"},
		{ns: "lonely", none: true},
		{ns: "missing", none: true},
		{ns: "shared", conflict: []string{"team-c", "team-d"}},
	}
	for path, d := range directories(t, ServeTenants()) {
		for _, tt := range tests {
			got, err := d.TenantFor(context.Background(), tt.ns)
			var (
				conflict *ConflictError
				none     *NoTenantError
			)
			switch {
			case tt.conflict != nil:
				if !errors.As(err, &conflict) || !reflect.DeepEqual(conflict.Tenants, tt.conflict) {
					t.Errorf("%s: TenantFor(%s) = %v, %v; want conflict %v", path, tt.ns, got, err, tt.conflict)
				}
			case tt.none:
				if !errors.As(err, &none) {
					t.Errorf("%s: TenantFor(%s) = %v, %v; want *NoTenantError", path, tt.ns, got, err)
				}
			default:
				if err != nil || got.Name != tt.want {
					t.Errorf("%s: TenantFor(%s) = %v, %v; want %s", path, tt.ns, got, err, tt.want)
				}
			}
		}
	}
}

func TestTenantForReturnsACopy(t *testing.T) {
	d := directories(t, ServeTenants())["index"]
	a, _ := d.TenantFor(context.Background(), "team-a")
	a.Spec.ResourceGroups = []string{"*"}
	b, _ := d.TenantFor(context.Background(), "team-a")
	if b.Spec.ResourceGroups[0] != "team-a-*" {
		t.Fatal("modifying a returned Tenant changed the directory's copy")
	}
}

func TestServes(t *testing.T) {
	tests := []struct {
		mode ServeMode
		ns   string
		want bool
	}{
		{ServeTenants(), "team-a", true},
		{ServeTenants(), "b-2", true},
		{ServeTenants(), "lonely", false},
		{ServeTenants(), "shared", true}, // served, so the conflict is reported on its objects
		{ServeAll(), "lonely", true},
		{ServeList("lonely", "team-a"), "lonely", true},
		{ServeList("lonely", "team-a"), "b-1", false},
	}
	for _, tt := range tests {
		for path, d := range directories(t, tt.mode) {
			if got, err := d.Serves(context.Background(), tt.ns); err != nil || got != tt.want {
				t.Errorf("%s mode %s: Serves(%s) = %v, %v; want %v", path, tt.mode, tt.ns, got, err, tt.want)
			}
		}
	}
}

func TestGroupAndWeight(t *testing.T) {
	d := directories(t, ServeTenants())["index"]
	tests := []struct {
		ns, group string
		weight    int
	}{
		{"team-a", "tenant/team-a", 3},
		{"b-1", "tenant/team-b", 1},
		{"b-2", "tenant/team-b", 1},
		{"lonely", "namespace/lonely", 1},
		{"shared", "namespace/shared", 1},
	}
	for _, tt := range tests {
		if g := d.GroupOf(tt.ns); g != tt.group || d.WeightOf(g) != tt.weight {
			t.Errorf("GroupOf(%s) = %s weight %d; want %s weight %d", tt.ns, g, d.WeightOf(g), tt.group, tt.weight)
		}
	}
}

// TestIndexFollowsEvents feeds the index the events an informer would and
// checks lookups follow: labels moving a namespace, Tenants appearing,
// changing and going away.
func TestIndexFollowsEvents(t *testing.T) {
	d := indexed(fakeReader(t), ServeTenants(), fixture()...)
	x := d.index
	owner := func(ns string) string {
		p, names := x.lookup(ns)
		if p != nil {
			return p.name()
		}
		if len(names) > 1 {
			return "conflict"
		}
		return ""
	}
	steps := []struct {
		name   string
		do     func()
		ns     string
		expect string
	}{
		{"label joins team-b", func() { x.SetNamespace("lonely", map[string]string{"team": "b"}) }, "lonely", "team-b"},
		{"label leaves team-b", func() { x.SetNamespace("lonely", nil) }, "lonely", ""},
		{"team-c deleted resolves the conflict", func() { x.DeleteTenant("team-c") }, "shared", "team-d"},
		{"team-d stops selecting", func() {
			td := tenant("team-d", nil)
			td.Generation = 2
			x.SetTenant(td)
		}, "shared", ""},
		{"namespace deleted still selected by name", func() { x.DeleteNamespace("team-a") }, "team-a", "team-a"},
		{"namespace deleted drops label selection", func() { x.DeleteNamespace("b-1") }, "b-1", ""},
		{"new Tenant by name", func() {
			x.SetTenant(tenant("team-e", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"lonely"} }))
		}, "lonely", "team-e"},
		{"status-only update keeps selection", func() {
			te := tenant("team-e", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"lonely"} })
			te.Status.Namespaces = []string{"lonely"}
			x.SetTenant(te)
		}, "lonely", "team-e"},
	}
	for _, s := range steps {
		s.do()
		if got := owner(s.ns); got != s.expect {
			t.Fatalf("%s: owner of %s = %q, want %q", s.name, s.ns, got, s.expect)
		}
	}
}
