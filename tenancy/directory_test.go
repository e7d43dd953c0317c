package tenancy

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
// changing and going away. Each change is announced to subscribers with the
// namespaces whose objects must be admitted again, and only those.
func TestIndexFollowsEvents(t *testing.T) {
	d := indexed(fakeReader(t), ServeTenants(), fixture()...)
	x := d.index
	changes := x.Subscribe(t.Context())
	notified := func() []string {
		select {
		case b := <-changes:
			return b
		case <-time.After(200 * time.Millisecond):
			return nil
		}
	}
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
		name     string
		do       func()
		ns       string
		expect   string
		notified []string
	}{
		{"label joins team-b", func() { x.SetNamespace("lonely", map[string]string{"team": "b"}) }, "lonely", "team-b", []string{"lonely"}},
		{"label leaves team-b", func() { x.SetNamespace("lonely", nil) }, "lonely", "", []string{"lonely"}},
		{"label change selecting nothing new", func() { x.SetNamespace("lonely", map[string]string{"team": "y"}) }, "lonely", "", nil},
		{"team-c deleted resolves the conflict", func() { x.DeleteTenant("team-c") }, "shared", "team-d", []string{"shared"}},
		{"team-d stops selecting", func() {
			td := tenant("team-d", nil)
			td.Generation = 2
			x.SetTenant(td)
		}, "shared", "", []string{"shared"}},
		{"namespace deleted still selected by name", func() { x.DeleteNamespace("team-a") }, "team-a", "team-a", nil},
		{"namespace deleted drops label selection", func() { x.DeleteNamespace("b-1") }, "b-1", "", []string{"b-1"}},
		{"team-b's policy changes", func() {
			tb := tenant("team-b", func(s *tenancyv1alpha1.TenantSpec) {
				s.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}
				s.ResourceGroups = []string{"b-*"}
			})
			tb.Generation = 2
			x.SetTenant(tb)
		}, "b-2", "team-b", []string{"b-2"}},
		{"new Tenant by name", func() {
			te := tenant("team-e", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"lonely"} })
			te.Generation = 1
			x.SetTenant(te)
		}, "lonely", "team-e", []string{"lonely"}},
		{"status-only update keeps selection", func() {
			te := tenant("team-e", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"lonely"} })
			te.Generation = 1
			te.Status.Namespaces = []string{"lonely"}
			x.SetTenant(te)
		}, "lonely", "team-e", nil},
	}
	for _, s := range steps {
		s.do()
		if got := owner(s.ns); got != s.expect {
			t.Fatalf("%s: owner of %s = %q, want %q", s.name, s.ns, got, s.expect)
		}
		if got := notified(); !slices.Equal(got, s.notified) {
			t.Fatalf("%s: namespaces announced %q, want %q", s.name, got, s.notified)
		}
	}
}

// TestIndexChangesCoalesce: a subscriber that is not reading never blocks the
// index (its informer handlers), and gets every namespace once when it reads.
func TestIndexChangesCoalesce(t *testing.T) {
	x := indexed(fakeReader(t), ServeTenants()).index
	changes := x.Subscribe(t.Context())
	var want []string
	for i := range 1000 {
		ns := fmt.Sprintf("ns-%04d", i)
		want = append(want, ns)
		x.SetTenant(tenant(ns, func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{ns} }))
	}
	var got []string
	for len(got) < len(want) {
		select {
		case b := <-changes:
			got = append(got, b...)
		case <-time.After(5 * time.Second):
			t.Fatalf("got %d of %d namespaces", len(got), len(want))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("announced %d namespaces (%q...), want each of %d once", len(got), got[:3], len(want))
	}
}
