package tenancy

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

func TestAdmit(t *testing.T) {
	storage := schema.GroupKind{Group: "storage.aztenant.io", Kind: "StorageAccount"}
	rgID := func(sub, rg string) string { return "/subscriptions/" + sub + "/resourceGroups/" + rg }
	saID := func(sub, rg string) string {
		return rgID(sub, rg) + "/providers/Microsoft.Storage/storageAccounts/sa1"
	}
	tests := []struct {
		name     string
		mode     ServeMode
		ns       string
		target   Target
		wantRule string // "" = admitted
		wantMsg  string // substring of the message
		conflict bool
	}{
		{name: "allowed", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db"), Location: "westeurope", GroupKind: storage}},
		{name: "location display name", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db"), Location: "West Europe", GroupKind: storage}},
		{name: "location case and spaces", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db"), Location: "NORTH europe", GroupKind: storage}},
		{name: "resource group case-insensitive", ns: "team-a", target: Target{ARMID: saID(subA, "TEAM-A-db"), GroupKind: storage}},
		{name: "subscription case-insensitive", ns: "team-a", target: Target{ARMID: saID(strings.ToUpper(subA), "team-a-db"), GroupKind: storage}},
		{name: "kind with group", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-x"), GroupKind: schema.GroupKind{Group: "authorization.aztenant.io", Kind: "RoleAssignment"}}},
		{name: "no location to check", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-x"), GroupKind: storage}},
		{name: "resource group ID itself", ns: "team-a", target: Target{ARMID: rgID(subA, "team-a-x"), GroupKind: storage}},
		{name: "loose tenant", ns: "b-1", target: Target{ARMID: saID(subB, "anything"), Location: "eastus", GroupKind: schema.GroupKind{Kind: "Whatever"}}},
		{name: "target agrees with ID", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db"), SubscriptionID: subA, ResourceGroup: "Team-A-DB", GroupKind: storage}},

		{name: "resource group outside pattern", ns: "team-a", target: Target{ARMID: saID(subA, "prod-db"), GroupKind: storage},
			wantRule: RuleResourceGroups, wantMsg: `resource group "prod-db" is not allowed for tenant "team-a" (allowed: team-a-*)`},
		{name: "subscription not allowed", ns: "team-a", target: Target{ARMID: saID(subB, "team-a-db"), GroupKind: storage},
			wantRule: RuleSubscriptions, wantMsg: `(allowed: ` + subA + `)`},
		{name: "location not allowed", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db"), Location: "eastus", GroupKind: storage},
			wantRule: RuleLocations, wantMsg: `location "eastus" is not allowed for tenant "team-a" (allowed: West Europe, northeurope)`},
		{name: "kind not allowed", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db"), GroupKind: schema.GroupKind{Group: "cache.aztenant.io", Kind: "Redis"}},
			wantRule: RuleKinds, wantMsg: `kind "Redis.cache.aztenant.io"`},
		{name: "kind in another group", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db"), GroupKind: schema.GroupKind{Group: "evil.example.com", Kind: "RoleAssignment"}},
			wantRule: RuleKinds},
		{name: "unknown kind when kinds are restricted", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db")},
			wantRule: RuleKinds},
		{name: "subscription-scoped ID", ns: "team-a", target: Target{ARMID: "/subscriptions/" + subA + "/providers/Microsoft.Authorization/roleAssignments/x", GroupKind: storage},
			wantRule: RuleResourceGroups, wantMsg: "outside any resource group"},
		{name: "ID escapes target resource group", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-other"), ResourceGroup: "team-a-db", GroupKind: storage},
			wantRule: RuleARMID, wantMsg: `not in the expected resource group "team-a-db"`},
		{name: "ID escapes target subscription", ns: "b-1", target: Target{ARMID: saID(subA, "rg"), SubscriptionID: subB},
			wantRule: RuleARMID, wantMsg: "not in the expected subscription"},
		{name: "extension resource scoped outside", ns: "team-a", target: Target{ARMID: rgID(subA, "prod") + "/providers/Microsoft.Storage/storageAccounts/x/providers/Microsoft.Authorization/roleAssignments/r", GroupKind: storage},
			wantRule: RuleResourceGroups},
		{name: "dot-dot in ID", ns: "team-a", target: Target{ARMID: rgID(subA, "team-a-db") + "/../prod/providers/Microsoft.Storage/storageAccounts/x", GroupKind: storage},
			wantRule: RuleARMID},
		{name: "empty ID", ns: "team-a", target: Target{GroupKind: storage}, wantRule: RuleARMID},
		{name: "namespace without Tenant", ns: "lonely", target: Target{ARMID: saID(subA, "x")},
			wantRule: RuleNamespaces, wantMsg: "not selected by any Tenant"},
		{name: "namespace without Tenant, mode all", mode: ServeAll(), ns: "lonely", target: Target{ARMID: saID(subA, "x")}},
		{name: "ID still checked without Tenant", mode: ServeAll(), ns: "lonely", target: Target{ARMID: saID(subA, "x") + "/"}, wantRule: RuleARMID},
		{name: "namespace not in list", mode: ServeList("lonely"), ns: "team-a", target: Target{ARMID: saID(subA, "team-a-db"), GroupKind: storage},
			wantRule: RuleNamespaces},
		{name: "listed namespace still follows its Tenant", mode: ServeList("team-a"), ns: "team-a", target: Target{ARMID: saID(subA, "prod"), GroupKind: storage},
			wantRule: RuleResourceGroups},
		{name: "cluster-scoped object", ns: "", target: Target{ARMID: saID(subA, "team-a-db")}, wantRule: RuleNamespaces},
		{name: "conflicting Tenants", ns: "shared", target: Target{ARMID: saID(subA, "team-c-x")}, conflict: true},
		{name: "group claimed more specifically by another Tenant", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-x-data"), GroupKind: storage},
			wantRule: RuleResourceGroups, wantMsg: `resource group "team-a-x-data" belongs to tenant "team-a-x", whose pattern "team-a-x-*" is more specific than tenant "team-a"'s "team-a-*"`},
		{name: "the more specific Tenant keeps its group", ns: "team-a-x", target: Target{ARMID: saID(subA, "team-a-x-data")}},
		{name: "a broader Tenant in another subscription claims nothing", ns: "b-1", target: Target{ARMID: saID(subB, "team-a-x-data")}},
		{name: "near names do not collide", ns: "team-a", target: Target{ARMID: saID(subA, "team-a-xdata"), GroupKind: storage}},
	}
	for _, tt := range tests {
		for path, d := range directories(t, tt.mode) {
			g := NewGuard(d)
			obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tt.ns, Name: "obj"}}
			err := g.Admit(context.Background(), obj, tt.target)
			var (
				denial   *DeniedError
				conflict *ConflictError
			)
			switch {
			case tt.conflict:
				if !errors.As(err, &conflict) || conflict.Reason() != ReasonNamespaceConflict {
					t.Errorf("%s/%s: Admit = %v, want *ConflictError", tt.name, path, err)
				}
			case tt.wantRule == "":
				if err != nil {
					t.Errorf("%s/%s: Admit = %v, want admitted", tt.name, path, err)
				}
			default:
				if !errors.As(err, &denial) || denial.Rule != tt.wantRule || denial.Reason() != "TenantPolicyDenied" {
					t.Errorf("%s/%s: Admit = %#v, want denial by %s", tt.name, path, err, tt.wantRule)
				} else if !strings.Contains(denial.Message, tt.wantMsg) {
					t.Errorf("%s/%s: message %q, want it to contain %q", tt.name, path, denial.Message, tt.wantMsg)
				}
			}
		}
	}
}

func TestAdmitUsesObjectKind(t *testing.T) {
	d := directories(t, ServeTenants())["index"]
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "obj"}}
	obj.SetGroupVersionKind(schema.GroupVersionKind{Group: "storage.aztenant.io", Version: "v1alpha1", Kind: "StorageAccount"})
	id := "/subscriptions/" + subA + "/resourceGroups/team-a-1/providers/Microsoft.Storage/storageAccounts/sa"
	if err := NewGuard(d).Admit(context.Background(), obj, Target{ARMID: id}); err != nil {
		t.Fatalf("Admit with the kind from the object's GVK = %v", err)
	}
}

func TestInvalidPatternAllowsNothing(t *testing.T) {
	p := compile(tenant("t", func(s *tenancyv1alpha1.TenantSpec) { s.ResourceGroups = []string{"[a-", "ok-*"} }))
	if p.allowsResourceGroup("[a-") || !p.allowsResourceGroup("ok-1") {
		t.Fatal("a malformed pattern must match nothing and leave the others working")
	}
	if reason, _ := p.validationError(); reason != ReasonInvalidPattern {
		t.Fatalf("validationError reason = %q, want %s", reason, ReasonInvalidPattern)
	}
}
