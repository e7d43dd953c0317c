package kinds_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
)

// setNamespacePolicy sets (or, with "", removes) a namespace's
// reconcile-policy annotation.
func (s *stack) setNamespacePolicy(t *testing.T, ns, policy string) {
	t.Helper()
	must(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var n corev1.Namespace
		if err := s.Client.Get(t.Context(), client.ObjectKey{Name: ns}, &n); err != nil {
			return err
		}
		if policy == "" {
			delete(n.Annotations, reconcilers.AnnotationReconcilePolicy)
		} else {
			if n.Annotations == nil {
				n.Annotations = map[string]string{}
			}
			n.Annotations[reconcilers.AnnotationReconcilePolicy] = policy
		}
		return s.Client.Update(t.Context(), &n)
	}))
}

// noFlags checks that a Ready=True object carries neither Reconciling nor
// Stalled: kstatus Current.
func noFlags(t *testing.T, obj azurev1alpha1.Resource) {
	t.Helper()
	for _, typ := range []string{reconcilers.ConditionReconciling, reconcilers.ConditionStalled} {
		if c := meta.FindStatusCondition(obj.AzureStatus().Conditions, typ); c != nil {
			t.Errorf("%s: %s %s (%s), want none", obj.GetName(), typ, c.Status, c.Reason)
		}
	}
}

// A namespace's reconcile-policy annotation applies to its objects as soon
// as it changes: skip, then manage (the annotation removed) creates the
// resource at once, and a deletion then deletes it; skip added again stops a
// managed object at once, and its deletion leaves its resource in Azure.
func TestNamespacePolicySkipThenManage(t *testing.T) {
	t.Parallel()
	const ns = "nspolicy"
	ctx := t.Context()
	// Annotated before the operator starts, so its first look already sees skip.
	must(t, testenv.Get(t).Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Annotations: map[string]string{reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicySkip)}}}))
	s := newStack(t, ns)

	rg := resourceGroup(ns, "nspolicy-app", nil, nil)
	path := "/resourceGroups/nspolicy-app"
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonReconcileSkipped)
	noFlags(t, rg)
	if controllerutil.ContainsFinalizer(rg, reconcilers.Finalizer) {
		t.Error("a skipped object holds the finalizer")
	}
	if calls := s.ARMCalls(path); len(calls) != 0 {
		t.Errorf("skip made ARM calls: %s", methods(calls))
	}

	// manage: the object is reconciled at once (the sync period is an hour).
	s.setNamespacePolicy(t, ns, "")
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if got := methods(s.ARMCalls(path)); !createdOnce(got) {
		t.Errorf("manage made %q, want \"GET PUT\"", got)
	}
	if !controllerutil.ContainsFinalizer(rg, reconcilers.Finalizer) {
		t.Error("a managed object has no finalizer")
	}
	if _, err := s.Emu.Resource(rgID("nspolicy-app")); err != nil {
		t.Fatalf("manage did not create the resource group: %v", err)
	}
	must(t, s.Client.Delete(ctx, rg))
	until(t, "deleted object gone", func() bool { return s.Gone(rg) })
	if _, err := s.Emu.Resource(rgID("nspolicy-app")); err == nil {
		t.Error("deleting a managed object left its resource group in Azure")
	}
	if got := methods(s.ARMCalls(path)); !strings.Contains(got, "DELETE") {
		t.Errorf("calls %q, want a DELETE", got)
	}

	// skip added to the namespace stops a managed object at once.
	other := resourceGroup(ns, "nspolicy-other", nil, nil)
	otherPath := "/resourceGroups/nspolicy-other"
	s.Create(t, other)
	s.WaitReady(t, other, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.setNamespacePolicy(t, ns, string(reconcilers.PolicySkip))
	s.WaitReady(t, other, metav1.ConditionTrue, reconcilers.ReasonReconcileSkipped)
	noFlags(t, other)
	n := len(s.ARMCalls(otherPath))
	must(t, s.Client.Delete(ctx, other))
	until(t, "skipped object gone", func() bool { return s.Gone(other) })
	if calls := s.ARMCalls(otherPath); len(calls) != n {
		t.Errorf("a skipped object's deletion called ARM: %s", methods(calls[n:]))
	}
	if _, err := s.Emu.Resource(rgID("nspolicy-other")); err != nil {
		t.Errorf("deleting a skipped object deleted its resource group: %v", err)
	}
}

// A deletion follows the policy in force when it happens: the namespace
// annotated detach-on-delete just before the object is deleted (no waiting
// for the operator to see the change) leaves the resource in Azure, with no
// DELETE sent.
func TestNamespaceDetachOnDeleteAppliesToTheNextDeletion(t *testing.T) {
	t.Parallel()
	const ns = "nsdetach"
	ctx := t.Context()
	s := newStack(t, ns)
	rg := resourceGroup(ns, "nsdetach-app", nil, nil)
	path := "/resourceGroups/nsdetach-app"
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	s.setNamespacePolicy(t, ns, string(reconcilers.PolicyDetachOnDelete))
	must(t, s.Client.Delete(ctx, rg))
	until(t, "detached object gone", func() bool { return s.Gone(rg) })
	if got := methods(s.ARMCalls(path)); strings.Contains(got, "DELETE") {
		t.Errorf("calls %q: detach-on-delete sent a DELETE", got)
	}
	if _, err := s.Emu.Resource(rgID("nsdetach-app")); err != nil {
		t.Errorf("detach-on-delete on the namespace deleted the resource group: %v", err)
	}
}
