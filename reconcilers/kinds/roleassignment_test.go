package kinds_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

const readerRole = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

func roleAssignment(ns, name string, owner authorizationv1alpha1.RoleAssignmentOwner, role authorizationv1alpha1.RoleDefinitionReference) *authorizationv1alpha1.RoleAssignment {
	return &authorizationv1alpha1.RoleAssignment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       authorizationv1alpha1.RoleAssignmentSpec{Owner: &owner, RoleDefinitionReference: role},
	}
}

func readyMessage(obj azurev1alpha1.Resource) string { return stacktest.ReadyMessage(obj) }

// The namespace's identity is only Contributor, which cannot grant roles: the
// assignment waits for its resource group, then Azure's refusal is reported
// with who was refused what where, and nothing is created.
func TestRoleAssignmentNeedsRBACRights(t *testing.T) {
	t.Parallel()
	const ns = "radeny"
	s := newStack(t, ns)
	ra := roleAssignment(ns, "grant", authorizationv1alpha1.RoleAssignmentOwner{Name: "radeny-rg"},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Reader"})
	ra.Spec.PrincipalID = s.Principal[ns]
	s.Create(t, ra)
	s.WaitReady(t, ra, metav1.ConditionUnknown, reconcilers.ReasonWaitingForOwner)

	s.Create(t, resourceGroup(ns, "radeny-rg", nil, nil))
	s.WaitReady(t, ra, metav1.ConditionFalse, reconcilers.ReasonAuthorizationFailed)
	msg := readyMessage(ra)
	for _, want := range []string{s.Principal[ns], strings.ToLower(rgID("radeny-rg")), "Microsoft.Authorization/roleAssignments/write"} {
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(want)) {
			t.Errorf("message %q does not name %q", msg, want)
		}
	}
	if _, err := s.Emu.Resource(ra.Status.ID); err == nil {
		t.Error("the assignment exists in Azure")
	}
	// Deleting a refused assignment leaves nothing behind and does not hang.
	must(t, s.Client.Delete(t.Context(), ra))
	until(t, "refused assignment object gone", func() bool { return s.Gone(ra) })
}

// With rights to grant roles, a namespace gives a new identity a role by
// reading its principalId from the ConfigMap the identity exports (waiting for
// it to appear), and grants roles at scopes named by armId and by kind. Each
// assignment is written once, a description change once more, a resync not
// at all, and deleting the object removes the assignment from Azure.
func TestRoleAssignmentLifecycle(t *testing.T) {
	t.Parallel()
	const ns = "ra"
	s := newStack(t, ns)
	ctx := t.Context()
	rg := resourceGroup(ns, "ra-rg", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	must(t, s.Emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{
		PrincipalID: s.Principal[ns], Role: "Role Based Access Control Administrator", Scope: rgID("ra-rg"),
	}}}))

	// Reader for an identity that does not exist yet, by its exported principalId.
	reader := roleAssignment(ns, "app-reader", authorizationv1alpha1.RoleAssignmentOwner{Name: "ra-rg"},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Reader"})
	reader.Spec.PrincipalIDFromConfig = &azurev1alpha1.ConfigMapReference{Name: "ra-app-ids", Key: "principalId"}
	reader.Spec.Description = "v1"
	// As Azure advises for a principal created a moment ago (the stack's
	// emulator replicates new principals for 2 s; TestRoleAssignmentForANewPrincipal).
	reader.Spec.PrincipalType = "ServicePrincipal"
	s.Create(t, reader)
	s.WaitReady(t, reader, metav1.ConditionFalse, reconcilers.ReasonReferenceNotFound)
	if msg := readyMessage(reader); !strings.Contains(msg, `ConfigMap "ra-app-ids"`) {
		t.Errorf("message %q does not name the missing ConfigMap", msg)
	}

	// Contributor on the identity, named by group and kind before it exists.
	byKind := roleAssignment(ns, "on-identity", authorizationv1alpha1.RoleAssignmentOwner{
		Name: "ra-app", Group: managedidentityv1alpha1.GroupVersion.Group, Kind: "UserAssignedIdentity"},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Contributor"})
	byKind.Spec.PrincipalID = s.Principal[ns]
	s.Create(t, byKind)
	s.WaitReady(t, byKind, metav1.ConditionUnknown, reconcilers.ReasonWaitingForOwner)

	uai := userAssignedIdentity(ns, "ra-app", "ra-rg")
	uai.Spec.OperatorSpec = &managedidentityv1alpha1.UserAssignedIdentityOperatorSpec{
		ConfigMaps: &managedidentityv1alpha1.UserAssignedIdentityOperatorConfigMaps{
			PrincipalID: &azurev1alpha1.ConfigMapDestination{Name: "ra-app-ids", Key: "principalId"},
		},
	}
	// They are told when the identity is Ready: they watch it. (A time bound
	// here flaked under load, 7 s against a requeue's 10 s; make bench's
	// converge scenario, whose children are created with their owners, is
	// where a missed owner event shows as time.)
	raGK := schema.GroupKind{Group: authorizationv1alpha1.GroupVersion.Group, Kind: "RoleAssignment"}
	uaiGK := schema.GroupKind{Group: managedidentityv1alpha1.GroupVersion.Group, Kind: "UserAssignedIdentity"}
	if !s.Parts.Kinds.WatchesOwner(raGK, uaiGK) {
		t.Error("RoleAssignments do not watch UserAssignedIdentities, one of their scopes")
	}
	s.Create(t, uai)
	s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, reader, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, byKind, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if !strings.EqualFold(byKind.Status.Scope, uai.Status.ID) {
		t.Errorf("assignment on the identity has scope %q, want %q", byKind.Status.Scope, uai.Status.ID)
	}

	id := reader.Status.ID
	prefix := rgID("ra-rg") + "/providers/Microsoft.Authorization/roleAssignments/"
	if !strings.HasPrefix(strings.ToLower(id), strings.ToLower(prefix)) {
		t.Fatalf("status.id %q is not under %s", id, prefix)
	}
	path := id[strings.LastIndex(id, "/"):]
	// GETs while waiting for the ConfigMap, then exactly one PUT.
	if got := s.Settled(t, path, 2); strings.Count(got, "PUT") != 1 {
		t.Fatalf("create made %q, want one PUT", got)
	}
	props := s.AzureBody(t, id)["properties"].(map[string]any)
	if props["principalId"] != uai.Status.PrincipalID || !strings.HasSuffix(props["roleDefinitionId"].(string), readerRole) {
		t.Errorf("Azure has %v, want Reader for %s", props, uai.Status.PrincipalID)
	}
	if reader.Status.PrincipalID != uai.Status.PrincipalID || !strings.EqualFold(reader.Status.Scope, rgID("ra-rg")) ||
		!strings.EqualFold(reader.Status.RoleDefinitionID, "/subscriptions/"+subID+"/providers/Microsoft.Authorization/roleDefinitions/"+readerRole) {
		t.Errorf("status %+v", reader.Status)
	}

	// A description change is one more PUT; a resync none.
	n := len(s.ARMCalls(path))
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(reader), reader))
	reader.Spec.Description = "v2"
	must(t, s.Client.Update(ctx, reader))
	s.WaitReady(t, reader, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if got := s.Settled(t, path, n+2); strings.Count(got, "PUT") != 2 {
		t.Errorf("a description change made %q in all, want one more GET and PUT", got)
	}
	if d := s.AzureBody(t, id)["properties"].(map[string]any)["description"]; d != "v2" {
		t.Errorf("description in Azure %v", d)
	}
	s.Touch(t, reader, "1")
	if got := s.Settled(t, path, n+3); strings.Count(got, "PUT") != 2 {
		t.Errorf("a resync made %q in all, want one more GET and no PUT", got)
	}

	// A scope by armId, with a role definition ID lacking its subscription.
	byID := roleAssignment(ns, "ns-reader", authorizationv1alpha1.RoleAssignmentOwner{ARMID: rgID("ra-rg")},
		authorizationv1alpha1.RoleDefinitionReference{ARMID: "/providers/Microsoft.Authorization/roleDefinitions/" + readerRole})
	byID.Spec.PrincipalID = s.Principal[ns]
	s.Create(t, byID)
	s.WaitReady(t, byID, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	p := byID.Status.ID[strings.LastIndex(byID.Status.ID, "/"):]
	s.Touch(t, byID, "1")
	if got := s.Settled(t, p, 3); strings.Count(got, "PUT") != 1 {
		t.Errorf("create and resync made %q, want one PUT", got)
	}

	for _, ra := range []*authorizationv1alpha1.RoleAssignment{reader, byID, byKind} {
		id := ra.Status.ID
		must(t, s.Client.Delete(ctx, ra))
		until(t, ra.Name+" gone", func() bool { return s.Gone(ra) })
		if _, err := s.Emu.Resource(id); err == nil {
			t.Errorf("%s still exists in Azure", id)
		}
	}
}

// An assignment without azureName always gets the same GUID for the same
// object and scope, and different ones for other objects or scopes.
func TestRoleAssignmentDerivedName(t *testing.T) {
	ra := roleAssignment("team", "grant", authorizationv1alpha1.RoleAssignmentOwner{Name: "rg"}, authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Reader"})
	scope := rgID("team-rg")
	armID := kinds.RoleAssignment{}.Hooks().ARMID
	id := armID(ra, scope)
	name := id[strings.LastIndex(id, "/")+1:]
	again := armID(ra.DeepCopy(), strings.ToUpper(scope[:14])+scope[14:])
	if !strings.HasSuffix(again, "/"+name) {
		t.Errorf("the derived name changes between calls or with the scope's casing: %s, then %s", id, again)
	}
	if len(name) != 36 || strings.Count(name, "-") != 4 {
		t.Errorf("derived name %q is not a GUID", name)
	}
	other := ra.DeepCopy()
	other.Namespace = "team2"
	if armID(other, scope) == id || armID(ra, rgID("team-other")) == id {
		t.Error("another namespace or scope derives the same name")
	}
	ra.Spec.AzureName = "0b1c2d3e-0000-4000-8000-000000000001"
	if got := armID(ra, scope); got != scope+"/providers/Microsoft.Authorization/roleAssignments/"+ra.Spec.AzureName {
		t.Errorf("spec.azureName ignored: %s", got)
	}
}

// An assignment for a principal created a moment ago, without principalType,
// meets Azure's directory replication (400 PrincipalNotFound, with Azure's
// hint in the condition) and is made within seconds of its end, not at the
// next spec change. Replication is held open until the rejection is seen, so
// a busy machine cannot let it end before the first PUT.
func TestRoleAssignmentForANewPrincipal(t *testing.T) {
	t.Parallel()
	const ns = "ranew"
	s := &stack{stacktest.NewTuned(t, stacktest.DefaultConfig(), func(c *emulator.Config) {
		c.PrincipalReplication = emulator.Duration(time.Hour)
	}, ns)}
	rg := resourceGroup(ns, "ranew-rg", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	must(t, s.Emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{
		PrincipalID: s.Principal[ns], Role: "Role Based Access Control Administrator", Scope: rgID("ranew-rg"),
	}}}))
	uai := userAssignedIdentity(ns, "ranew-app", "ranew-rg")
	s.Create(t, uai)
	s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	ra := roleAssignment(ns, "ranew-reader", authorizationv1alpha1.RoleAssignmentOwner{Name: "ranew-rg"},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Reader"})
	ra.Spec.PrincipalID = uai.Status.PrincipalID
	s.Create(t, ra)
	s.WaitReady(t, ra, metav1.ConditionFalse, reconcilers.ReasonAzureRejected)
	if msg := readyMessage(ra); !strings.Contains(msg, "PrincipalNotFound") || !strings.Contains(msg, "principalType") {
		t.Errorf("message %q does not carry Azure's PrincipalNotFound and its hint", msg)
	}
	// Replication ends; no spec change follows: Ready comes from the retry alone.
	s.Emu.FinishReplication()
	replicated := time.Now()
	s.WaitReady(t, ra, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	t.Logf("the assignment was made %s after its principal replicated", time.Since(replicated).Round(100*time.Millisecond))
}
