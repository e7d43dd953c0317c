package tenancy

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSameNamespace(t *testing.T) {
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "cfg"}}
	obj.Kind = "ConfigMap"
	cluster := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	tests := []struct {
		name  string
		refNS string
		obj   interface {
			GetNamespace() string
		}
		wantErr bool
	}{
		{"empty namespace means own", "", obj, false},
		{"own namespace", "team-a", obj, false},
		{"other namespace", "team-b", obj, true},
		{"cluster-scoped object to a namespace", "team-a", cluster, true},
	}
	for _, tt := range tests {
		var err error
		switch o := tt.obj.(type) {
		case *corev1.ConfigMap:
			err = SameNamespace(o, "Secret", tt.refNS, "creds")
		case *corev1.Namespace:
			err = SameNamespace(o, "Secret", tt.refNS, "creds")
		}
		var cn *CrossNamespaceError
		if tt.wantErr != errors.As(err, &cn) {
			t.Errorf("%s: SameNamespace = %v, want cross-namespace error %v", tt.name, err, tt.wantErr)
		}
		if cn != nil && (cn.Reason() != ReasonCrossNamespace || !strings.Contains(err.Error(), `"`+tt.refNS+`"`)) {
			t.Errorf("%s: error %q (reason %s) should name the namespace", tt.name, err, cn.Reason())
		}
	}
}

func TestAdmitReferences(t *testing.T) {
	rg := func(sub, name string) string { return "/subscriptions/" + sub + "/resourceGroups/" + name }
	subnet := func(sub, group, vnet string) string {
		return rg(sub, group) + "/providers/Microsoft.Network/virtualNetworks/" + vnet + "/subnets/default"
	}
	uai := func(sub, group, name string) string {
		return rg(sub, group) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name
	}
	workspace := rg(subA, "central-logs") + "/providers/Microsoft.OperationalInsights/workspaces/central"
	tests := []struct {
		name     string
		mode     ServeMode
		ns       string
		ref      Reference
		wantRule string // "" = admitted
		wantMsg  string
	}{
		{name: "subnet in the tenant's groups", ns: "team-a", ref: Reference{Path: "properties.subnet.id", ARMID: subnet(subA, "team-a-net", "vnet")}},
		{name: "subnet of a shared network", ns: "team-a", ref: Reference{Path: "properties.subnet.id", ARMID: subnet(subA, "hub-network", "hub")}},
		{name: "shared by pattern, any case", ns: "team-a", ref: Reference{Path: "p", ARMID: rg(subA, "HUB-DNS") + "/providers/Microsoft.Network/privateDnsZones/privatelink.blob.core.windows.net"}},
		{name: "an ID appended to a shared one", ns: "team-a", ref: Reference{Path: "p", ARMID: rg(subA, "hub-dns") + "/providers/Microsoft.Network/privateDnsZones/privatelink.blob.core.windows.net" + subnet(subB, "team-b-net", "vnet")},
			wantRule: RuleARMID, wantMsg: "another ID starts inside it"},
		{name: "text after a shared ID", ns: "team-a", ref: Reference{Path: "p", ARMID: rg(subA, "hub-dns") + "/providers/Microsoft.Network/privateDnsZones/privatelink.blob.core.windows.net/../x"},
			wantRule: RuleARMID},
		{name: "pattern stays within a segment", ns: "team-a", ref: Reference{Path: "p", ARMID: rg(subA, "hub-dns") + "/providers/Microsoft.Network/privateDnsZones/privatelink.blob.evil.net"},
			wantRule: RuleSharedResources},
		{name: "another network in the hub's group", ns: "team-a", ref: Reference{Path: "properties.subnet.id", ARMID: subnet(subA, "hub-network", "hub2")},
			wantRule: RuleSharedResources, wantMsg: `properties.subnet.id refers to ` + subnet(subA, "hub-network", "hub2") + `, outside tenant "team-a"'s resource groups (team-a-*); a platform team can share it in tenant "team-a"'s spec.sharedResources`},
		{name: "workspace in another group", ns: "team-a", ref: Reference{Path: "properties.workspaceId", ARMID: workspace}, wantRule: RuleSharedResources},
		{name: "another subscription", ns: "team-a", ref: Reference{Path: "p", ARMID: subnet(subB, "team-a-net", "vnet")},
			wantRule: RuleSharedResources, wantMsg: `in subscription "` + subB + `", outside tenant "team-a"`},
		{name: "a group another Tenant claims more specifically", ns: "team-a", ref: Reference{Path: "p", ARMID: subnet(subA, "team-a-x-net", "vnet")},
			wantRule: RuleSharedResources, wantMsg: `of tenant "team-a-x"`},
		{name: "subscription-scoped resource", ns: "team-a", ref: Reference{Path: "p", ARMID: "/subscriptions/" + subA + "/providers/Microsoft.Network/networkWatchers/x"},
			wantRule: RuleSharedResources},
		{name: "malformed", ns: "team-a", ref: Reference{Path: "p", ARMID: rg(subA, "team-a-net") + "/../hub"}, wantRule: RuleARMID},
		{name: "identity the namespace owns", ns: "team-a", ref: Reference{Path: "identity.userAssignedIdentities", ARMID: uai(subA, "team-a-ids", "app"), Owned: true}},
		{name: "identity in the tenant's groups, not the namespace's", ns: "team-a", ref: Reference{Path: "identity.userAssignedIdentities", ARMID: uai(subA, "team-a-ids", "other")},
			wantRule: RuleSharedResources, wantMsg: `identity.userAssignedIdentities names user-assigned identity ` + uai(subA, "team-a-ids", "other") + `, which no UserAssignedIdentity of namespace "team-a" manages`},
		{name: "identity the Tenant shares", ns: "team-a", ref: Reference{Path: "p", ARMID: uai(subB, "identities", "shared-reader")}},
		{name: "another namespace's identity, served without a Tenant", mode: ServeAll(), ns: "lonely", ref: Reference{Path: "p", ARMID: uai(subA, "x", "y")}, wantRule: RuleSharedResources},
		{name: "anything else, served without a Tenant", mode: ServeAll(), ns: "lonely", ref: Reference{Path: "p", ARMID: workspace}},
		{name: "role definition in the tenant's subscription", ns: "team-a", ref: Reference{Path: "properties.roleDefinitionId", OutsideGroups: true,
			ARMID: "/subscriptions/" + subA + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}},
		{name: "role definition of the directory", ns: "team-a", ref: Reference{Path: "properties.roleDefinitionId", OutsideGroups: true,
			ARMID: "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}},
		{name: "role definition in another subscription", ns: "team-a", ref: Reference{Path: "properties.roleDefinitionId", OutsideGroups: true,
			ARMID: "/subscriptions/" + subB + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}, wantRule: RuleSharedResources},
		{name: "directory-rooted ID elsewhere", ns: "team-a", ref: Reference{Path: "p", ARMID: "/providers/Microsoft.Management/managementGroups/root"}, wantRule: RuleARMID},
	}
	for _, tt := range tests {
		mode := tt.mode
		for path, d := range directories(t, mode) {
			obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tt.ns, Name: "obj"}}
			err := NewGuard(d).AdmitReferences(context.Background(), obj, []Reference{
				{Path: "properties.first.id", ARMID: subnet(subA, "team-a-net", "vnet")}, tt.ref})
			var denial *DeniedError
			switch {
			case tt.wantRule == "":
				if err != nil {
					t.Errorf("%s/%s: AdmitReferences = %v, want admitted", tt.name, path, err)
				}
			case !errors.As(err, &denial) || denial.Rule != tt.wantRule:
				t.Errorf("%s/%s: AdmitReferences = %#v, want denial by %s", tt.name, path, err, tt.wantRule)
			case !strings.Contains(denial.Message, tt.wantMsg):
				t.Errorf("%s/%s: message %q, want it to contain %q", tt.name, path, denial.Message, tt.wantMsg)
			}
		}
	}
}
