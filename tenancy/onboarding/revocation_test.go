package onboarding_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// uami is a UserAssignedIdentity object in an onboarded resource group.
func uami(ns, name, rg string) *managedidentityv1alpha1.UserAssignedIdentity {
	return &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: managedidentityv1alpha1.UserAssignedIdentitySpec{
			Owner: &azurev1alpha1.OwnerReference{ARMID: onboarding.ResourceGroupID(subID, rg)}, Location: location,
		},
	}
}

// waitReady waits for obj's Ready condition with the status and reason.
func (w *world) waitReady(obj azurev1alpha1.Resource, status metav1.ConditionStatus, reason string) *metav1.Condition {
	w.t.Helper()
	var c *metav1.Condition
	testenv.Eventually(w.t, time.Minute, fmt.Sprintf("%s Ready=%s %s", obj.GetName(), status, reason), func() (bool, string) {
		if err := w.c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return false, err.Error()
		}
		c = meta.FindStatusCondition(obj.AzureStatus().Conditions, "Ready")
		return c != nil && c.Status == status && c.Reason == reason && c.ObservedGeneration == obj.GetGeneration(), condString(c)
	})
	return c
}

// A Tenant being deleted serves deletions only: its namespace's Ready
// objects stop being updated and new ones are refused with no ARM call,
// while an object deleted meanwhile is deleted in Azure with the namespace's
// own identity. The Tenant says what its offboarding waits for (which
// objects of which namespace, and the Identity and ServiceAccount kept for
// them) and is gone once they are.
func TestTenantBeingDeletedServesDeletionsOnly(t *testing.T) {
	w := newWorld(t, "rv-ops", []string{"Contributor", "User Access Administrator"}, true)
	ctx := t.Context()
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rv-a"}})
	w.startOperator("rv")
	w.create(onboardingTenant("rv", []string{"rv-a"}, []string{"rv-app"}))
	w.waitOnboarded("rv", metav1.ConditionTrue, onboarding.ReasonOnboarded)

	keep, gone := uami("rv-a", "keep", "rv-app"), uami("rv-a", "gone", "rv-app")
	w.create(keep, gone)
	w.waitReady(keep, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	w.waitReady(gone, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	var id identityv1alpha1.Identity
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: "rv-a", Name: "default"}, &id); err != nil {
		t.Fatal(err)
	}
	principal := id.Status.PrincipalID
	platformOID, _ := w.emu.PrincipalID(platformClientID)

	mark := w.lastSeq()
	if err := w.c.Delete(ctx, w.tenant("rv")); err != nil {
		t.Fatal(err)
	}
	c := w.waitReady(keep, metav1.ConditionFalse, tenancy.ReasonTenantTerminating)
	if !strings.Contains(c.Message, `Tenant "rv" is being deleted`) || !strings.Contains(c.Message, "delete this object") {
		t.Errorf("message %q does not say what is being removed and what to do", c.Message)
	}

	late := uami("rv-a", "late", "rv-app")
	w.create(late)
	w.waitReady(late, metav1.ConditionFalse, tenancy.ReasonTenantTerminating)
	if controllerutil.ContainsFinalizer(late, reconcilers.Finalizer) {
		t.Error("the refused object holds a finalizer, and so the Tenant")
	}

	// The Tenant says what it waits for.
	testenv.Eventually(t, time.Minute, "Tenant lists what blocks offboarding", func() (bool, string) {
		tn := w.tenant("rv")
		ob := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded)
		ready := meta.FindStatusCondition(tn.Status.Conditions, tenancy.ConditionReady)
		step := findStep(tn, "rv-a", tenancyv1alpha1.StepIdentity)
		ok := ob != nil && ob.Reason == onboarding.ReasonOffboarding &&
			strings.Contains(ob.Message, "namespace rv-a: 2 UserAssignedIdentity still exist (Identity rv-a/default and ServiceAccount rv-a/") &&
			ready != nil && ready.Status == metav1.ConditionFalse && ready.Reason == tenancy.ReasonTerminating &&
			step != nil && step.State == tenancyv1alpha1.StepDeleting && strings.Contains(step.Message, "2 object(s) of namespace rv-a still hold it: 2 UserAssignedIdentity")
		return ok, fmt.Sprintf("Onboarded %s; Ready %s; step %+v", condString(ob), condString(ready), step)
	})

	// A deletion still reaches Azure, with the namespace's identity.
	goneID := gone.Status.ID
	if err := w.c.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	w.waitGone(gone)
	if w.exists(goneID) {
		t.Errorf("%s was orphaned in Azure", goneID)
	}
	var deletes []string
	for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm", Method: http.MethodDelete}) {
		if strings.EqualFold(e.Path, goneID) {
			deletes = append(deletes, e.PrincipalID)
		}
	}
	if len(deletes) != 1 || deletes[0] != principal {
		t.Errorf("DELETE %s by %v, want once by the namespace's principal %s", goneID, deletes, principal)
	}
	testenv.Eventually(t, time.Minute, "the count follows", func() (bool, string) {
		ob := meta.FindStatusCondition(w.tenant("rv").Status.Conditions, onboarding.ConditionOnboarded)
		return ob != nil && strings.Contains(ob.Message, "namespace rv-a: 1 UserAssignedIdentity still exist"), condString(ob)
	})

	keepID := keep.Status.ID
	if err := w.c.Delete(ctx, keep); err != nil {
		t.Fatal(err)
	}
	w.waitGone(&tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "rv"}})
	for _, gone := range []string{keepID, onboarding.ResourceGroupID(subID, "rv-app"), onboarding.ManagedIdentityID(subID, onboarding.DefaultIdentityResourceGroup, "rv-a")} {
		if w.exists(gone) {
			t.Errorf("%s left behind", gone)
		}
	}
	for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm", Method: http.MethodPut}) {
		t.Errorf("PUT %s by %s while the Tenant was being deleted", e.Path, e.PrincipalID)
	}
	for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm"}) {
		if strings.Contains(strings.ToLower(e.Path), "/userassignedidentities/late") {
			t.Errorf("%s %s for the object created after the Tenant's deletion", e.Method, e.Path)
		}
		if e.PrincipalID != principal && e.PrincipalID != platformOID {
			t.Errorf("%s %s by %s, neither the namespace's nor the platform's principal", e.Method, e.Path, e.PrincipalID)
		}
	}
}

// A namespace that leaves its Tenant deletes nothing in Azure: nothing bounds
// what its identity may touch any more. Deleting one of its objects says so
// and how to let it go, the Tenant says what offboarding waits for, and with
// detach-on-delete the object goes, the resource stays, and offboarding ends.
func TestNamespaceLeavingItsTenantDeletesNothing(t *testing.T) {
	w := newWorld(t, "lv-ops", []string{"Contributor", "User Access Administrator"}, true)
	ctx := t.Context()
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lv-a"}})
	w.startOperator("lv")
	w.create(onboardingTenant("lv", []string{"lv-a"}, []string{"lv-app"}))
	w.waitOnboarded("lv", metav1.ConditionTrue, onboarding.ReasonOnboarded)
	app := uami("lv-a", "app", "lv-app")
	w.create(app)
	w.waitReady(app, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	appID := app.Status.ID

	tn := w.tenant("lv")
	tn.Spec.Namespaces = []string{"lv-elsewhere"}
	if err := w.c.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	w.waitReady(app, metav1.ConditionFalse, tenancy.ReasonPolicyDenied)
	testenv.Eventually(t, time.Minute, "the Tenant waits for lv-a's object", func() (bool, string) {
		ob := meta.FindStatusCondition(w.tenant("lv").Status.Conditions, onboarding.ConditionOnboarded)
		return ob != nil && strings.Contains(ob.Message, "namespace lv-a: 1 UserAssignedIdentity still exist"), condString(ob)
	})

	mark := w.lastSeq()
	if err := w.c.Delete(ctx, app); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "deletion refused, saying how to let go", func() (bool, string) {
		if err := w.c.Get(ctx, client.ObjectKeyFromObject(app), app); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(app.Status.Conditions, "Ready")
		return c != nil && c.Reason == tenancy.ReasonPolicyDenied && strings.Contains(c.Message, "cannot delete "+appID) &&
			strings.Contains(c.Message, "not selected by any Tenant") && strings.Contains(c.Message, "detach-on-delete"), condString(c)
	})
	for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm"}) {
		if strings.EqualFold(e.Path, appID) {
			t.Errorf("%s %s for a namespace without a Tenant", e.Method, e.Path)
		}
	}

	app.Annotations = map[string]string{reconcilers.AnnotationReconcilePolicy: "detach-on-delete"}
	if err := w.c.Update(ctx, app); err != nil {
		t.Fatal(err)
	}
	w.waitGone(app)
	if !w.exists(appID) {
		t.Errorf("the detached %s is gone from Azure", appID)
	}
	w.waitGone(&identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: "lv-a", Name: "default"}})
	w.waitOnboarded("lv", metav1.ConditionTrue, onboarding.ReasonOnboarded)
}
