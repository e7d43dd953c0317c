package tenancy

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// spec.kinds: the two forms kept (Kind, Kind.group, exact) and group/Kind
// with globs, as the chart's crds.pattern; all case-insensitive.
func TestTenantKindPatterns(t *testing.T) {
	var (
		storage   = schema.GroupKind{Group: "storage.aztenant.io", Kind: "StorageAccount"}
		container = schema.GroupKind{Group: "storage.aztenant.io", Kind: "StorageAccountsBlobServicesContainer"}
		vnet      = schema.GroupKind{Group: "network.aztenant.io", Kind: "VirtualNetwork"}
		subnet    = schema.GroupKind{Group: "network.aztenant.io", Kind: "VirtualNetworksSubnet"}
		vault     = schema.GroupKind{Group: "keyvault.aztenant.io", Kind: "Vault"}
		pg        = schema.GroupKind{Group: "dbforpostgresql.aztenant.io", Kind: "FlexibleServer"}
		pgDB      = schema.GroupKind{Group: "dbforpostgresql.aztenant.io", Kind: "FlexibleServersDatabase"}
		foreign   = schema.GroupKind{Group: "evil.example.com", Kind: "StorageAccount"}
	)
	all := []schema.GroupKind{storage, container, vnet, subnet, vault, pg, pgDB, foreign}
	for _, tc := range []struct {
		name  string
		kinds []string
		allow []schema.GroupKind
		bad   bool
	}{
		{"empty allows any", nil, all, false},
		{"Kind in any group", []string{"StorageAccount"}, []schema.GroupKind{storage, foreign}, false},
		{"Kind.group", []string{"StorageAccount.storage.aztenant.io"}, []schema.GroupKind{storage}, false},
		{"Kind.group is case-insensitive", []string{"storageaccount.STORAGE.aztenant.io"}, []schema.GroupKind{storage}, false},
		{"group/* is the group's kinds", []string{"network.aztenant.io/*"}, []schema.GroupKind{vnet, subnet}, false},
		{"group/Kind", []string{"storage.aztenant.io/StorageAccount"}, []schema.GroupKind{storage}, false},
		{"kind glob", []string{"dbforpostgresql.aztenant.io/Flexible*"}, []schema.GroupKind{pg, pgDB}, false},
		{"? is one character", []string{"dbforpostgresql.aztenant.io/FlexibleServe?"}, []schema.GroupKind{pg}, false},
		{"group glob", []string{"*/Vault"}, []schema.GroupKind{vault}, false},
		{"groups glob", []string{"*.aztenant.io/*"}, []schema.GroupKind{storage, container, vnet, subnet, vault, pg, pgDB}, false},
		{"glob case-insensitive", []string{"NETWORK.aztenant.io/virtualnetwork"}, []schema.GroupKind{vnet}, false},
		{"forms mixed", []string{"Vault", "network.aztenant.io/VirtualNetwork*", "FlexibleServer.dbforpostgresql.aztenant.io"},
			[]schema.GroupKind{vnet, subnet, vault, pg}, false},
		{"a malformed glob allows nothing", []string{"network.aztenant.io/[*"}, nil, true},
		{"a malformed glob allows nothing of its own, the others still", []string{"[/x", "Vault"}, []schema.GroupKind{vault}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(tenant("k", func(s *tenancyv1alpha1.TenantSpec) { s.Kinds = tc.kinds }))
			for _, gk := range all {
				want := false
				for _, a := range tc.allow {
					want = want || a == gk
				}
				if got := p.allowsKind(gk); got != want {
					t.Errorf("%v allows %s: %v, want %v", tc.kinds, gk, got, want)
				}
				// What a Tenant names (and so activates) is what it allows,
				// but an empty list, which allows any kind, names none.
				if got := KindsName(tc.kinds, gk); got != (want && len(tc.kinds) > 0) {
					t.Errorf("%v names %s: %v, want %v", tc.kinds, gk, got, want && len(tc.kinds) > 0)
				}
			}
			if reason, msg := p.validationError(); (reason != "") != tc.bad {
				t.Errorf("validation: %q %q, want an error: %v", reason, msg, tc.bad)
			}
		})
	}
}

// The API server refuses a kind that is none of the forms, with a message
// naming them; the forms are accepted.
func TestTenantKindsAdmission(t *testing.T) {
	c := testenv.Get(t).Client
	for i, kinds := range [][]string{
		{"StorageAccount", "RoleAssignment.authorization.aztenant.io", "network.aztenant.io/*", "*/Vault", "dbforpostgresql.aztenant.io/Flexible?erver*"},
	} {
		tn := tenant("kinds-ok-"+string(rune('a'+i)), func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces, s.Kinds = []string{"kinds-ns"}, kinds })
		if err := c.Create(t.Context(), tn); err != nil {
			t.Errorf("kinds %q refused: %v", kinds, err)
		} else {
			_ = c.Delete(t.Context(), tn)
		}
	}
	for i, bad := range []string{"*.network.aztenant.io", "network.aztenant.io/", "/Vault", "Storage Account", "network.aztenant.io/Virtual/Network", "Vault.*", "[a]/Vault", ""} {
		tn := tenant("kinds-bad-"+string(rune('a'+i)), func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces, s.Kinds = []string{"kinds-ns"}, []string{bad} })
		err := c.Create(t.Context(), tn)
		if err == nil {
			_ = c.Delete(t.Context(), tn)
			t.Errorf("kind %q admitted", bad)
			continue
		}
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "group/Kind with the globs * and ?") {
			t.Errorf("kind %q: %v, want Invalid naming the forms", bad, err)
		}
	}
}
