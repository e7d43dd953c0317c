package onboarding_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// A developer creates a resource group the Tenant allows (fe1-*) but
// onboarding does not list, with a ResourceGroup object and nothing else:
// onboarding creates it with the platform identity, tagged for the object,
// and grants the namespace's identity onboarding's role on it; the object is
// Ready without adopt and manages the group as its own (its tags written with
// the namespace's identity); deleting the object deletes the group with the
// namespace's identity, and the role assignment leaves onboarding's record.
// A group that exists already, or that holds the Tenant's managed
// identities, is refused: no role is granted there.
func TestDeveloperCreatesAnAllowedResourceGroup(t *testing.T) {
	w := newWorld(t, "fe1-ops", []string{"Contributor", "User Access Administrator"}, true)
	ctx := t.Context()
	const ns = "fe1-stack"
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	w.startOperator("fe1")
	tn := onboardingTenant("fe1", []string{ns}, []string{"fe1-shared"})
	tn.Spec.Onboarding.IdentityResourceGroup = "fe1-identities" // matches fe1-*, and must never be granted
	w.create(tn)
	w.waitOnboarded("fe1", metav1.ConditionTrue, onboarding.ReasonOnboarded)
	var id identityv1alpha1.Identity
	testenv.Eventually(t, time.Minute, ns+"/default has its principal", func() (bool, string) {
		err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &id)
		return err == nil && id.Status.PrincipalID != "", fmt.Sprint(err)
	})
	principal := id.Status.PrincipalID
	platformOID, _ := w.emu.PrincipalID(platformClientID)
	w.createRG("fe1-existing") // someone else's, out of band
	mark := w.lastSeq()

	rg := func(name string) *resourcesv1alpha1.ResourceGroup {
		return &resourcesv1alpha1.ResourceGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       resourcesv1alpha1.ResourceGroupSpec{Location: location, Tags: map[string]string{"team": "fe1"}},
		}
	}
	mine := rg("fe1-rg1")
	w.create(mine)
	w.waitReady(mine, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	groupID := onboarding.ResourceGroupID(subID, "fe1-rg1")
	if mine.Status.Adopted || !strings.EqualFold(mine.Status.ID, groupID) {
		t.Errorf("status id %q adopted %v, want %s created for the object (not adopted)", mine.Status.ID, mine.Status.Adopted, groupID)
	}
	var body struct{ Tags map[string]string }
	raw, err := w.emu.Resource(groupID)
	if err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(raw, &body)
	if body.Tags["team"] != "fe1" || body.Tags[onboarding.TagRequestedBy] != ns+"/fe1-rg1" || body.Tags[reconcilers.TagOwner] == "" {
		t.Errorf("tags of the group %v: want the spec's, who asked and the owner marker", body.Tags)
	}
	if _, left := body.Tags[reconcilers.TagCreatedFor]; left {
		t.Errorf("tag %s is still on the group: a later object of the same name would take it without adopt", reconcilers.TagCreatedFor)
	}
	creates := w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm", Method: http.MethodPut})
	var byPlatform, byNamespace bool
	for _, e := range creates {
		if strings.EqualFold(e.Path, groupID) {
			byPlatform = byPlatform || e.PrincipalID == platformOID
			byNamespace = byNamespace || e.PrincipalID == principal
		}
	}
	if !byPlatform || !byNamespace {
		t.Errorf("PUTs of the group by the platform: %v, by the namespace (its tags): %v; want both", byPlatform, byNamespace)
	}
	want := strings.ToLower(groupID + " " + onboarding.RoleDefinitionID(subID, "b24988ac-6180-42a0-ab88-20f7382dd24c"))
	if !contains(w.roleAssignmentsOf(principal), want) {
		t.Errorf("roles of the namespace %v, want Contributor on %s", w.roleAssignmentsOf(principal), groupID)
	}
	step := findStep(w.waitOnboarded("fe1", metav1.ConditionTrue, onboarding.ReasonOnboarded), ns, tenancyv1alpha1.StepRequestedResourceGroups)
	if step == nil || step.State != tenancyv1alpha1.StepReady || !contains(lower(step.IDs), strings.ToLower(groupID)) {
		t.Errorf("step %s: %+v, want Ready naming the group", tenancyv1alpha1.StepRequestedResourceGroups, step)
	}

	// Refused: a group that exists and was not created for the object, and
	// the group holding the Tenant's managed identities.
	for _, name := range []string{"fe1-existing", "fe1-identities"} {
		o := rg(name)
		w.create(o)
		c := w.waitReady(o, metav1.ConditionFalse, reconcilers.ReasonAuthorizationFailed)
		if !strings.Contains(strings.ToLower(c.Message), "resourcegroups/read") || !strings.Contains(c.Message, "resourceGroups/write on /subscriptions/"+subID) {
			t.Errorf("%s: message %q does not say which action was refused and which role a new group needs", name, c.Message)
		}
	}
	testenv.Eventually(t, time.Minute, "the refusals in the Tenant's status", func() (bool, string) {
		s := findStep(w.tenant("fe1"), ns, tenancyv1alpha1.StepRequestedResourceGroups)
		if s == nil {
			return false, "no step"
		}
		return s.State == tenancyv1alpha1.StepReady && s.Reason == onboarding.ReasonRequestRefused &&
			strings.Contains(s.Message, "fe1-existing") && strings.Contains(s.Message, "was not created for this object") &&
			strings.Contains(s.Message, "fe1-identities") && strings.Contains(s.Message, "managed identities"), fmt.Sprintf("%+v", *s)
	})
	// The developer reads why on the object; the Tenant stays Onboarded.
	for _, name := range []string{"fe1-existing", "fe1-identities"} {
		w.expectObjectEvent(ns, name, onboarding.ReasonRequestRefused, "does not create resource group "+name)
	}
	w.waitOnboarded("fe1", metav1.ConditionTrue, onboarding.ReasonOnboarded)
	for _, ra := range w.roleAssignmentsOf(principal) {
		if strings.Contains(ra, "/fe1-existing ") || strings.Contains(ra, "/fe1-identities ") {
			t.Errorf("the namespace got a role on a group it did not get created: %s", ra)
		}
	}

	if !contains(w.roleAssignmentsOf(principal), want) {
		t.Errorf("after the refusals, roles of the namespace %v, want still Contributor on %s; tenant %+v", w.roleAssignmentsOf(principal), groupID, w.tenant("fe1").Status.Onboarding)
	}
	// A platform engineer grants the role by hand: no event tells the
	// operator, and the object looks again within seconds, not minutes.
	existingID := onboarding.ResourceGroupID(subID, "fe1-existing")
	ras, err := armauthorization.NewRoleAssignmentsClient(subID, w.fixture, w.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ras.Create(ctx, existingID, uuid.NewString(), armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		RoleDefinitionID: to.Ptr(onboarding.RoleDefinitionID(subID, "b24988ac-6180-42a0-ab88-20f7382dd24c")),
		PrincipalID:      to.Ptr(principal), PrincipalType: to.Ptr(armauthorization.PrincipalTypeServicePrincipal),
	}}, nil); err != nil {
		t.Fatal(err)
	}
	w.waitReady(rg("fe1-existing"), metav1.ConditionFalse, reconcilers.ReasonAlreadyExists)

	// Deleting the object deletes the group, as the namespace.
	mark = w.lastSeq()
	if err := w.c.Delete(ctx, mine); err != nil {
		t.Fatal(err)
	}
	w.waitGone(mine)
	if w.exists(groupID) {
		t.Fatalf("%s is still in Azure after its object was deleted", groupID)
	}
	for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm", Method: http.MethodDelete}) {
		if strings.EqualFold(e.Path, groupID) && e.PrincipalID != principal {
			t.Errorf("DELETE %s by %s, not the namespace's principal", e.Path, e.PrincipalID)
		}
	}
	testenv.Eventually(t, time.Minute, "the group's role assignment leaves onboarding's record", func() (bool, string) {
		st := w.tenant("fe1").Status.Onboarding
		for _, c := range st.Created {
			if strings.Contains(strings.ToLower(c.ID), "/resourcegroups/fe1-rg1/") {
				return false, "still recorded: " + c.ID
			}
		}
		return true, ""
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func lower(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strings.ToLower(s)
	}
	return out
}

// expectObjectEvent waits for an event about object ns/name with reason and
// a note containing text, as `kubectl events --for` shows it.
func (w *world) expectObjectEvent(ns, name, reason, text string) {
	w.t.Helper()
	testenv.Eventually(w.t, time.Minute, "event "+reason+" on "+ns+"/"+name, func() (bool, string) {
		var list eventsv1.EventList
		if err := w.c.List(w.t.Context(), &list, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range list.Items {
			if e.Regarding.Name == name {
				if e.Reason == reason && strings.Contains(e.Note, text) {
					return true, ""
				}
				seen = append(seen, e.Reason+": "+e.Note)
			}
		}
		return false, strings.Join(seen, " | ")
	})
}
