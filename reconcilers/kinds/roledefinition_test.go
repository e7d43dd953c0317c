package kinds_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
)

func roleDefinition(ns, name, rg string, actions ...string) *authorizationv1alpha1.RoleDefinition {
	return &authorizationv1alpha1.RoleDefinition{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: authorizationv1alpha1.RoleDefinitionSpec{
			Owner:                      &authorizationv1alpha1.RoleDefinitionOwner{Name: rg},
			RoleName:                   ns + " " + name,
			Permissions:                []authorizationv1alpha1.RoleDefinitionPermission{{Actions: actions}},
			AssignableScopesReferences: []azurev1alpha1.ResourceReference{{ARMID: rgID(rg)}},
		},
	}
}

// A namespace allowed to define roles in its resource group defines one that reads
// storage; one whose actions could assign roles, or act as another principal, is
// refused before anything is written, saying which action; and a role offered at
// another team's group is held to the Tenant's bounds.
func TestRoleDefinitionsAreHeldToTheirBounds(t *testing.T) {
	t.Parallel()
	const ns = "rdef"
	s := newStackOf(t, "authorization.aztenant.io", ns)
	rg := resourceGroup(ns, "rdef-rg", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	must(t, s.Emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{
		PrincipalID: s.Principal[ns], Role: "User Access Administrator", Scope: rgID("rdef-rg"),
	}}}))

	reader := roleDefinition(ns, "reader", "rdef-rg", "Microsoft.Storage/storageAccounts/read")
	s.Create(t, reader)
	s.WaitReady(t, reader, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	def, err := s.Emu.ResourceBody(reader.Status.ID)
	must(t, err)
	props, _ := def["properties"].(map[string]any)
	if props["roleName"] != "rdef reader" || props["type"] != "CustomRole" {
		t.Errorf("Azure has %v, want the custom role rdef reader", props)
	}

	for _, c := range []struct{ name, action string }{
		{"granter", "Microsoft.Authorization/roleAssignments/write"},
		{"wildcard", "*"},
		{"identity-user", "Microsoft.ManagedIdentity/userAssignedIdentities/*"},
	} {
		rd := roleDefinition(ns, c.name, "rdef-rg", c.action)
		s.Create(t, rd)
		s.WaitReady(t, rd, metav1.ConditionFalse, "PolicyDenied")
		if msg := readyMessage(rd); !strings.Contains(msg, "privileged") || !strings.Contains(msg, c.action) {
			t.Errorf("%s: message %q does not say the role is privileged by %s", c.name, msg, c.action)
		}
	}
	for _, e := range s.ARMCalls("") {
		if e.Method == "PUT" && strings.Contains(strings.ToLower(e.Path), "/roledefinitions/") && !strings.EqualFold(e.Path, reader.Status.ID) {
			t.Errorf("a refused role was written: %s %s", e.Method, e.Path)
		}
	}

	// Offered at a group outside the namespace's bounds: refused, nothing written.
	foreign := roleDefinition(ns, "foreign", "rdef-rg", "Microsoft.Storage/storageAccounts/read")
	foreign.Spec.AssignableScopesReferences = append(foreign.Spec.AssignableScopesReferences, azurev1alpha1.ResourceReference{ARMID: rgID("other-team-rg")})
	s.Create(t, foreign)
	s.WaitReady(t, foreign, metav1.ConditionFalse, tenancy.ReasonPolicyDenied)
	if msg := readyMessage(foreign); !strings.Contains(msg, "other-team-rg") {
		t.Errorf("message %q does not name the group outside the bounds", msg)
	}
	for _, e := range s.ARMCalls("") {
		if e.Method == "PUT" && strings.Contains(strings.ToLower(e.Path), "/roledefinitions/") && !strings.EqualFold(e.Path, reader.Status.ID) {
			t.Errorf("a refused role was written: %s %s", e.Method, e.Path)
		}
	}

	must(t, s.Client.Delete(t.Context(), reader))
	until(t, "role definition object gone", func() bool { return s.Gone(reader) })
	if _, err := s.Emu.Resource(reader.Status.ID); err == nil {
		t.Error("the role definition is still in Azure after its object was deleted")
	}
}
