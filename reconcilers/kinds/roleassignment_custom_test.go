package kinds_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// customRole writes a custom role definition in the emulator as the platform
// team would, outside aztenant, and returns its ID.
func (s *stack) customRole(t *testing.T, guid, name string, actions ...string) string {
	t.Helper()
	rds, err := armauthorization.NewRoleDefinitionsClient(s.PlatformCredential(t), &arm.ClientOptions{ClientOptions: s.Emu.ClientOptions(), DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	var acts []*string
	for _, a := range actions {
		acts = append(acts, to.Ptr(a))
	}
	sub := "/subscriptions/" + subID
	rd, err := rds.CreateOrUpdate(t.Context(), sub, guid, armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr(name), RoleType: to.Ptr("CustomRole"), AssignableScopes: []*string{to.Ptr(sub)},
		Permissions: []*armauthorization.Permission{{Actions: acts}},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return *rd.ID
}

// A RoleAssignment naming a custom role is checked by the role's actions,
// read from ARM with the namespace's own identity: one that may write role
// assignments is refused (PolicyDenied) before anything is written, one that
// only reads is granted.
func TestRoleAssignmentRefusesPrivilegedCustomRoles(t *testing.T) {
	t.Parallel()
	const ns = "racustom"
	s := newStack(t, ns)
	rg := resourceGroup(ns, "racustom-rg", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	// The namespace may grant roles on its group, so only aztenant's check
	// stands between it and the privileged role.
	must(t, s.Emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{
		PrincipalID: s.Principal[ns], Role: "Role Based Access Control Administrator", Scope: rgID("racustom-rg"),
	}}}))
	const granterGUID, readerGUID = "4a0a0a0a-0000-4000-8000-000000000001", "4a0a0a0a-0000-4000-8000-000000000002"
	granter := s.customRole(t, granterGUID, "team granter", "Microsoft.Authorization/roleAssignments/write", "*/read")
	s.customRole(t, readerGUID, "team reader", "*/read")

	denied := roleAssignment(ns, "grant-granter", authorizationv1alpha1.RoleAssignmentOwner{Name: "racustom-rg"},
		authorizationv1alpha1.RoleDefinitionReference{ARMID: granter})
	denied.Spec.PrincipalID = s.Principal[ns]
	s.Create(t, denied)
	s.WaitReady(t, denied, metav1.ConditionFalse, kinds.ReasonPolicyDenied)
	msg := readyMessage(denied)
	for _, want := range []string{granterGUID, `custom role "team granter"`, "Microsoft.Authorization/roleAssignments/write", "assign any role"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	// The role was read with the namespace's identity; no assignment was written.
	var reads []emulator.AuditEntry
	for _, e := range s.ARMCalls("/providers/Microsoft.Authorization/roleDefinitions/" + granterGUID) {
		if e.Method == "GET" {
			reads = append(reads, e)
		}
	}
	if len(reads) == 0 || reads[0].PrincipalID != s.Principal[ns] {
		t.Errorf("role definition reads: %+v", reads)
	}
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Service: "arm", Method: "PUT"}) {
		if strings.Contains(strings.ToLower(e.Path), "/roleassignments/") {
			t.Errorf("a role assignment was written: %+v", e)
		}
	}

	// By ID without its subscription, as a built-in role would be named.
	allowed := roleAssignment(ns, "grant-reader", authorizationv1alpha1.RoleAssignmentOwner{Name: "racustom-rg"},
		authorizationv1alpha1.RoleDefinitionReference{ARMID: "/providers/Microsoft.Authorization/roleDefinitions/" + readerGUID})
	allowed.Spec.PrincipalID = s.Principal[ns]
	s.Create(t, allowed)
	s.WaitReady(t, allowed, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if rd := s.AzureBody(t, allowed.Status.ID)["properties"].(map[string]any)["roleDefinitionId"]; !strings.EqualFold(rd.(string), "/subscriptions/"+subID+"/providers/Microsoft.Authorization/roleDefinitions/"+readerGUID) {
		t.Errorf("Azure has role %v", rd)
	}
}

// Verify, over the cases the emulator test cannot reach: built-in roles are
// not read, a Broad custom role (Contributor's shape) is refused at
// subscription scope only, a missing or unreadable role is not assigned, and
// an ARM failure is passed on as one.
func TestRoleAssignmentVerify(t *testing.T) {
	const custom = "/subscriptions/" + subID + "/providers/Microsoft.Authorization/roleDefinitions/4b0b0b0b-0000-4000-8000-000000000001"
	body := func(actions, notActions string) map[string]any {
		list := func(s string) []any {
			var out []any
			for _, a := range strings.Fields(s) {
				out = append(out, a)
			}
			return out
		}
		return map[string]any{"name": "4b0b0b0b-0000-4000-8000-000000000001", "properties": map[string]any{
			"roleName": "custom", "type": "CustomRole",
			"permissions": []any{map[string]any{"actions": list(actions), "notActions": list(notActions)}}}}
	}
	rgAssignment := rgID("team-rg") + "/providers/Microsoft.Authorization/roleAssignments/4c0c0c0c-0000-4000-8000-000000000001"
	subAssignment := "/subscriptions/" + subID + "/providers/Microsoft.Authorization/roleAssignments/4c0c0c0c-0000-4000-8000-000000000001"
	armErr := errors.New("ARM is down")
	for _, c := range []struct {
		name       string
		ref        authorizationv1alpha1.RoleDefinitionReference
		assignment string
		answer     map[string]any
		err        error
		reads      bool
		reason     string // "" for allowed
	}{
		{"built-in by name", authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Owner"}, rgAssignment, nil, nil, false, ""},
		{"built-in by ID", authorizationv1alpha1.RoleDefinitionReference{ARMID: "/providers/Microsoft.Authorization/roleDefinitions/8E3AF657-A8FF-443C-A75C-2FE8C4BCB635"}, rgAssignment, nil, nil, false, ""},
		{"custom reader", authorizationv1alpha1.RoleDefinitionReference{ARMID: custom}, rgAssignment, body("*/read", ""), nil, true, ""},
		{"custom granter", authorizationv1alpha1.RoleDefinitionReference{ARMID: custom}, rgAssignment, body("*/write", ""), nil, true, kinds.ReasonPolicyDenied},
		{"custom identity operator", authorizationv1alpha1.RoleDefinitionReference{ARMID: custom}, rgAssignment, body("Microsoft.ManagedIdentity/userAssignedIdentities/*/assign/action", ""), nil, true, kinds.ReasonPolicyDenied},
		{"contributor's shape on a group", authorizationv1alpha1.RoleDefinitionReference{ARMID: custom}, rgAssignment, body("*", "Microsoft.Authorization/*"), nil, true, ""},
		{"contributor's shape on the subscription", authorizationv1alpha1.RoleDefinitionReference{ARMID: custom}, subAssignment, body("*", "Microsoft.Authorization/*"), nil, true, kinds.ReasonPolicyDenied},
		{"missing", authorizationv1alpha1.RoleDefinitionReference{ARMID: custom}, rgAssignment, nil, nil, true, reconcilers.ReasonReferenceNotFound},
		{"unreadable", authorizationv1alpha1.RoleDefinitionReference{ARMID: custom}, rgAssignment, map[string]any{"properties": map[string]any{"permissions": "all"}}, nil, true, reconcilers.ReasonGuardFailed},
		{"ARM failure", authorizationv1alpha1.RoleDefinitionReference{ARMID: custom}, rgAssignment, nil, armErr, true, "arm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ra := roleAssignment("team", "grant", authorizationv1alpha1.RoleAssignmentOwner{Name: "team-rg"}, c.ref)
			read := ""
			get := func(_ context.Context, id, apiVersion string) (map[string]any, error) {
				read = id + "?api-version=" + apiVersion
				return c.answer, c.err
			}
			err := roleAssignmentKind(t).Hooks().Verify(t.Context(), get, ra, c.assignment)
			if c.reads != (read != "") {
				t.Fatalf("read %q, want a read: %v", read, c.reads)
			}
			if c.reads && read != custom+"?api-version=2022-04-01" {
				t.Errorf("read %s", read)
			}
			var reasoned interface{ Reason() string }
			switch {
			case c.reason == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.reason == "arm" && !errors.Is(err, armErr):
				t.Errorf("ARM failure became %v", err)
			case c.reason != "" && c.reason != "arm" && (!errors.As(err, &reasoned) || reasoned.Reason() != c.reason):
				t.Errorf("got %v, want reason %s", err, c.reason)
			}
		})
	}
}

// roleAssignmentKind is the RoleAssignment kind as the operator registers it: the
// generated adapter with its overlay (roleassignment_overlay.go).
func roleAssignmentKind(t *testing.T) reconcilers.Kind {
	t.Helper()
	for _, k := range kinds.All() {
		if _, ok := k.New().(*authorizationv1alpha1.RoleAssignment); ok {
			return k
		}
	}
	t.Fatal("no RoleAssignment kind")
	return nil
}
