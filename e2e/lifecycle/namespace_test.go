package lifecycle_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
)

// holders lists the namespace's aztenant objects that still hold the
// reconciler's finalizer.
func holders(t *testing.T, tr *tree, extra ...client.Object) []string {
	t.Helper()
	c := testenvClient(t)
	var out []string
	for _, o := range append(tr.all()[:len(tr.resources())], extra...) {
		cp := o.DeepCopyObject().(client.Object)
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(o), cp); err == nil && controllerutil.ContainsFinalizer(cp, reconcilers.Finalizer) {
			out = append(out, fmt.Sprintf("%T %s", o, o.GetName()))
		}
	}
	return out
}

// namespaceGone waits for the namespace to finish terminating, checking at
// each look that the namespace's Identity and provisioner ServiceAccount are
// still there while any of its resources holds its finalizer (they are what
// deletes those resources in Azure).
func namespaceGone(t *testing.T, s *stacktest.Stack, tr *tree, extra ...client.Object) {
	t.Helper()
	ctx := context.Background()
	id := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: tr.ns, Name: "default"}}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tr.ns, Name: identity.ProvisionerServiceAccount}}
	complained := false
	testenv.Eventually(t, wait, "namespace "+tr.ns+" deleted", func() (bool, string) {
		held := holders(t, tr, extra...)
		if len(held) > 0 && (s.Gone(id) || s.Gone(sa)) && !complained {
			complained = true
			t.Errorf("the Identity or its ServiceAccount is gone while %v still need them", held)
		}
		var n corev1.Namespace
		err := s.Client.Get(ctx, client.ObjectKey{Name: tr.ns}, &n)
		return apierrors.IsNotFound(err), fmt.Sprintf("phase %s, conditions %v, holders %v", n.Status.Phase, n.Status.Conditions, held)
	})
}

// Deleting a tenant namespace with Ready resources: each Azure resource is
// deleted (one DELETE, the resource group's, with everything inside it) or
// detached as its reconcile policy says, all with the namespace's own
// identity, which its Identity and ServiceAccount keep until the last
// resource is gone; then the namespace finishes terminating.
func TestDeletingATenantNamespace(t *testing.T) {
	t.Parallel()
	const ns = "team-leaving"
	s := stacktest.New(t, ns)
	ctx := t.Context()
	tr := newTree(t, s, ns, nil)
	kept := stacktest.ResourceGroup(ns, ns+"-kept", map[string]string{reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicyDetachOnDelete)}, nil)
	s.Create(t, kept)
	s.WaitReady(t, kept, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	rgID, keptID := tr.rg.Status.ID, kept.Status.ID

	mark := lastSeq(s)
	must(t, s.Client.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	namespaceGone(t, s, tr, kept)

	if got := writes(s, mark); len(got) != 1 || !strings.EqualFold(got[0], "DELETE "+rgID+" 202") {
		t.Errorf("ARM writes during the namespace's deletion: %q, want only the resource group's DELETE", got)
	}
	for _, o := range tr.resources() {
		if inAzure(s, o.AzureStatus().ID) {
			t.Errorf("%s is left in Azure", o.AzureStatus().ID)
		}
	}
	if !inAzure(s, keptID) {
		t.Errorf("%s (detach-on-delete) was deleted in Azure", keptID)
	}
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: mark}) {
		if e.Service == "arm" && e.PrincipalID != s.Principal[ns] {
			t.Errorf("ARM %s %s as %s, not the namespace's own principal %s", e.Method, e.Path, e.PrincipalID, s.Principal[ns])
		}
		if e.Service == "entra" && e.ClientID != s.ClientID[ns] {
			t.Errorf("Entra token for client %s during the namespace's deletion", e.ClientID)
		}
	}
}

// A namespace whose resource group Azure refuses to delete (409 ScopeLocked:
// a delete lock) stays Terminating, as Kubernetes reports in the namespace's
// own conditions; the group says why in its Ready condition and, since the
// API server takes no new events in a terminating namespace, in the
// Namespace's events. Its children's objects go (their resources are in the
// locked group), the Identity stays for the group. With the lock removed the
// next attempt deletes the group, and the namespace goes.
func TestNamespaceDeletionRefusedByAzureSaysWhy(t *testing.T) {
	t.Parallel()
	const ns = "team-locked"
	s := stacktest.New(t, ns)
	ctx := t.Context()
	tr := newTree(t, s, ns, nil)
	rgID := tr.rg.Status.ID
	s.Emu.SetFaults(emulator.Faults{FailNext: []emulator.FailRule{{
		ResourceType: "Microsoft.Resources/resourceGroups", Method: http.MethodDelete, Count: 1000, Status: http.StatusConflict, Code: "ScopeLocked",
		Message: fmt.Sprintf("The scope '%s' cannot perform delete operation because following scope(s) are locked: '%s'. Please remove the lock and try again.", rgID, rgID),
	}}})
	mark := lastSeq(s)
	must(t, s.Client.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))

	testenv.Eventually(t, wait, "the refusal in the group's Ready", func() (bool, string) {
		c := readyOf(s, tr.rg)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == reconcilers.ReasonAzureRejected &&
			strings.Contains(c.Message, "cannot delete "+rgID+" in Azure") && strings.Contains(c.Message, "ScopeLocked") &&
			strings.Contains(c.Message, "detach-on-delete"), condString(c)
	})
	waitEvent(t, s.Client, metav1.NamespaceDefault, "Namespace", ns, reconcilers.ReasonAzureRejected,
		"ResourceGroup "+ns+"/"+tr.rg.Name+" holds the namespace", "ScopeLocked")
	testenv.Eventually(t, wait, "Kubernetes says what holds the namespace", func() (bool, string) {
		var n corev1.Namespace
		must(t, s.Client.Get(ctx, client.ObjectKey{Name: ns}, &n))
		fin := namespaceCondition(&n, corev1.NamespaceFinalizersRemaining)
		content := namespaceCondition(&n, corev1.NamespaceContentRemaining)
		return n.Status.Phase == corev1.NamespaceTerminating &&
				fin != nil && fin.Status == corev1.ConditionTrue && strings.Contains(fin.Message, reconcilers.Finalizer) &&
				content != nil && content.Status == corev1.ConditionTrue && strings.Contains(content.Message, "resourcegroups.resources.aztenant.io"),
			fmt.Sprintf("phase %s, conditions %+v", n.Status.Phase, n.Status.Conditions)
	})
	id := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}}
	testenv.Eventually(t, wait, "the Identity waits for the group", func() (bool, string) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(id), id); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		return c != nil && c.Reason == identity.ReasonTerminating && strings.Contains(c.Message, "ResourceGroup "+tr.rg.Name), condString(c)
	})
	// The children went with their group, calling nothing; their resources
	// stay inside it until it goes.
	waitGone(t, s, append([]client.Object{tr.account, tr.container, tr.uai, tr.fic}, tr.exports...)...)
	for _, o := range tr.resources() {
		if !inAzure(s, o.AzureStatus().ID) {
			t.Errorf("%s was deleted in Azure while its group is locked", o.AzureStatus().ID)
		}
	}

	// The lock removed: the next attempt (within a minute, at once when the
	// object changes) deletes the group, and the namespace goes.
	s.Emu.SetFaults(emulator.Faults{})
	// The retry may have come already, and the group gone with it.
	if err := s.TouchErr(ctx, tr.rg, "unlocked"); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	namespaceGone(t, s, tr)
	got := writes(s, mark)
	if len(got) < 2 || !strings.EqualFold(got[len(got)-1], "DELETE "+rgID+" 202") {
		t.Fatalf("ARM writes: %q, want refused DELETEs of the group and then one accepted", got)
	}
	for _, w := range got[:len(got)-1] {
		if !strings.EqualFold(w, "DELETE "+rgID+" 409") {
			t.Errorf("ARM write %q besides the group's DELETE", w)
		}
	}
	for _, o := range tr.resources() {
		if inAzure(s, o.AzureStatus().ID) {
			t.Errorf("%s is left in Azure", o.AzureStatus().ID)
		}
	}
}

func namespaceCondition(n *corev1.Namespace, typ corev1.NamespaceConditionType) *corev1.NamespaceCondition {
	for i, c := range n.Status.Conditions {
		if c.Type == typ {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// In a namespace being deleted the API server refuses every create, a
// TokenRequest included: an operator restarted while a deletion there is
// stuck has no token of the namespace's ServiceAccount and cannot mint one,
// so it cannot act as the namespace any more. The object says so; detaching
// it lets the namespace go, and its resource stays in Azure.
func TestNamespaceDeletionAfterTheOperatorLostItsToken(t *testing.T) {
	t.Parallel()
	const ns = "team-restarted"
	s := stacktest.New(t, ns)
	ctx := t.Context()
	rg := stacktest.ResourceGroup(ns, ns+"-app", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	rgID := rg.Status.ID
	s.Emu.SetFaults(emulator.Faults{FailNext: []emulator.FailRule{{
		ResourceType: "Microsoft.Resources/resourceGroups", Method: http.MethodDelete, Count: 1000, Status: http.StatusConflict, Code: "ScopeLocked",
		Message: fmt.Sprintf("The scope '%s' cannot perform delete operation because following scope(s) are locked: '%s'. Please remove the lock and try again.", rgID, rgID),
	}}})
	must(t, s.Client.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	testenv.Eventually(t, wait, "the group's deletion refused", func() (bool, string) {
		c := readyOf(s, rg)
		return c != nil && c.Reason == reconcilers.ReasonAzureRejected, condString(c)
	})

	// The lock removed while the operator restarts: the new one has no token.
	s.StopManager()
	s.Emu.SetFaults(emulator.Faults{})
	mark := lastSeq(s)
	s.StartManager(t)
	testenv.Eventually(t, wait, "the group says it cannot act as the namespace", func() (bool, string) {
		c := readyOf(s, rg)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == identity.ReasonTokenRequestFailed &&
			strings.Contains(c.Message, "cannot delete "+rgID) && strings.Contains(c.Message, "the API server mints no new token there") &&
			strings.Contains(c.Message, "detach-on-delete"), condString(c)
	})
	if got := writes(s, mark); len(got) != 0 {
		t.Errorf("ARM writes without a token: %q", got)
	}

	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
	rg.Annotations = map[string]string{reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicyDetachOnDelete)}
	must(t, s.Client.Update(ctx, rg))
	testenv.Eventually(t, wait, "namespace "+ns+" deleted", func() (bool, string) {
		var n corev1.Namespace
		err := s.Client.Get(ctx, client.ObjectKey{Name: ns}, &n)
		return apierrors.IsNotFound(err), fmt.Sprintf("phase %s, conditions %v", n.Status.Phase, n.Status.Conditions)
	})
	if !inAzure(s, rgID) {
		t.Errorf("%s was deleted although detached", rgID)
	}
}
