package tenancy

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// fixture is a small cluster: team-a by name with tight rules, team-b by
// label with loose ones, and a namespace claimed by two Tenants.
func fixture() []client.Object {
	return []client.Object{
		tenant("team-a", func(s *tenancyv1alpha1.TenantSpec) {
			s.Namespaces = []string{"team-a"}
			s.Locations = []azurev1alpha1.Location{"West Europe", "northeurope"}
			s.Kinds = []string{"StorageAccount", "RoleAssignment.authorization.aztenant.io"}
			s.Weight = 3
			s.SharedResources = []tenancyv1alpha1.SharedResource{
				{ARMID: "/subscriptions/" + subA + "/resourceGroups/hub-network/providers/Microsoft.Network/virtualNetworks/hub"},
				{ARMID: "/subscriptions/" + subA + "/resourceGroups/hub-dns/providers/Microsoft.Network/privateDnsZones/privatelink.*.core.windows.net"},
				{ARMID: "/subscriptions/" + subB + "/resourceGroups/identities/providers/Microsoft.ManagedIdentity/userAssignedIdentities/shared-reader"},
			}
		}),
		tenant("team-b", func(s *tenancyv1alpha1.TenantSpec) {
			s.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}
			s.Subscriptions = []string{subB}
			s.ResourceGroups = []string{"*"}
		}),
		tenant("team-c", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"shared"} }),
		tenant("team-d", func(s *tenancyv1alpha1.TenantSpec) {
			s.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"shared": "true"}}
		}),
		// Named like a prefix extension of team-a: its groups "team-a-x-*"
		// also match team-a's "team-a-*".
		tenant("team-a-x", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"team-a-x"} }),
		namespace("team-a", nil),
		namespace("team-a-x", nil),
		namespace("b-1", map[string]string{"team": "b"}),
		namespace("b-2", map[string]string{"team": "b"}),
		namespace("lonely", map[string]string{"team": "z"}),
		namespace("shared", map[string]string{"shared": "true"}),
	}
}

// directories returns the same fixture behind both lookup paths, so every
// table runs against the listing fallback and the event-fed index.
func directories(t testing.TB, mode ServeMode) map[string]*Directory {
	objs := fixture()
	reader := fakeReader(t, objs...)
	return map[string]*Directory{
		"listing": NewDirectory(reader, mode),
		"index":   indexed(reader, mode, objs...),
	}
}
