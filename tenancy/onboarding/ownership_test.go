package onboarding_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// The regression of issue 12: a tenant's ResourceGroup adopting the group
// onboarding created for it, with reconcile-policy manage, then deleted,
// destroyed the platform's group and role assignment; onboarding created
// them again and the object deleted them again. Now adoption is refused
// (OwnedByAnother, naming the Tenant), deleting the object deletes nothing,
// an object that adopted the group before this check is detached with an
// event instead of deleting it, and onboarding's next pass writes nothing.
func TestAdoptingTheOnboardedGroupIsRefused(t *testing.T) {
	w := newWorld(t, "ow-ops", []string{"Contributor", "User Access Administrator"}, true)
	ctx := t.Context()
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ow-a"}})
	w.startOperator("ow")
	w.create(onboardingTenant("ow", []string{"ow-a"}, []string{"ow-app"}))
	w.waitOnboarded("ow", metav1.ConditionTrue, onboarding.ReasonOnboarded)
	groupID := onboarding.ResourceGroupID(subID, "ow-app")
	var id identityv1alpha1.Identity
	testenv.Eventually(t, time.Minute, "ow-a/default has its principal", func() (bool, string) {
		err := w.c.Get(ctx, client.ObjectKey{Namespace: "ow-a", Name: "default"}, &id)
		return err == nil && id.Status.PrincipalID != "", condString(nil)
	})
	roles := w.roleAssignmentsOf(id.Status.PrincipalID)
	if len(roles) != 1 {
		t.Fatalf("role assignments of ow-a: %v, want Contributor on ow-app", roles)
	}
	platformOID, _ := w.emu.PrincipalID(platformClientID)
	mark := w.lastSeq()

	rg := func(name string, annotations map[string]string) *resourcesv1alpha1.ResourceGroup {
		return &resourcesv1alpha1.ResourceGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ow-a", Name: name, Annotations: annotations},
			Spec:       resourcesv1alpha1.ResourceGroupSpec{AzureName: "ow-app", Location: location},
		}
	}
	grab := rg("grab", map[string]string{reconcilers.AnnotationAdopt: "true", reconcilers.AnnotationReconcilePolicy: "manage"})
	w.create(grab)
	c := w.waitReady(grab, metav1.ConditionFalse, reconcilers.ReasonOwnedByAnother)
	if !strings.Contains(c.Message, `onboarding of Tenant "ow"`) || !strings.Contains(c.Message, "deleting this object leaves it in Azure") {
		t.Errorf("message %q does not name the onboarding Tenant and what deletion does", c.Message)
	}
	if err := w.c.Delete(ctx, grab); err != nil {
		t.Fatal(err)
	}
	w.waitGone(grab)

	// An object that adopted the group before ownership was checked (as an
	// older operator left it: status.id set), deleted with manage.
	legacy := rg("legacy", map[string]string{reconcilers.AnnotationReconcilePolicy: "manage"})
	w.create(legacy)
	w.waitReady(legacy, metav1.ConditionFalse, reconcilers.ReasonOwnedByAnother)
	base := legacy.DeepCopy()
	legacy.Status.ID, legacy.Status.Adopted = groupID, true
	if err := w.c.Status().Patch(ctx, legacy, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Delete(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	w.waitGone(legacy)
	testenv.Eventually(t, time.Minute, "a Detached event on the legacy object", func() (bool, string) {
		var list eventsv1.EventList
		if err := w.c.List(context.Background(), &list, client.InNamespace("ow-a")); err != nil {
			return false, err.Error()
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "legacy" && e.Reason == "Detached" && strings.Contains(e.Note, `onboarding of Tenant "ow"`) && strings.Contains(e.Note, "left in Azure") {
				return true, ""
			}
		}
		return false, "no such event"
	})

	if !w.exists(groupID) {
		t.Fatal("the onboarded resource group was deleted")
	}
	if got := w.roleAssignmentsOf(id.Status.PrincipalID); len(got) != 1 || got[0] != roles[0] {
		t.Errorf("role assignments of ow-a now %v, want %v", got, roles)
	}
	for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm"}) {
		if e.Method != http.MethodGet && e.Method != http.MethodHead {
			t.Errorf("%s %s by %s: the refused objects wrote to Azure", e.Method, e.Path, e.PrincipalID)
		}
	}

	// Onboarding's next pass finds everything in place: no writes, Onboarded.
	before := w.lastSeq()
	tn := w.tenant("ow")
	tb := tn.DeepCopy()
	tn.Annotations = map[string]string{"test/poke": "1"}
	if err := w.c.Patch(ctx, tn, client.MergeFrom(tb)); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "a full onboarding pass", func() (bool, string) {
		n := len(w.emu.Audit(emulator.AuditFilter{Since: before, Service: "arm", Method: http.MethodGet, PrincipalID: platformOID}))
		return n >= 5, "GETs so far: " + itoa(n) // 2 groups, identity, credential, assignment
	})
	for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm"}) {
		if e.Method != http.MethodGet && e.Method != http.MethodHead {
			t.Errorf("%s %s after the refusals: onboarding repaired something", e.Method, e.Path)
		}
	}
	w.waitOnboarded("ow", metav1.ConditionTrue, onboarding.ReasonOnboarded)
}
