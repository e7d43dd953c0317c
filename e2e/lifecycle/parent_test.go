package lifecycle_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
)

// Deleting a resource group with children two levels deep finishes with
// kubectl's default (background) propagation and with foreground: the group
// is deleted in Azure with one DELETE and ARM deletes what is inside it, so
// nothing below gets a DELETE of its own; the children's objects and the
// Secret and ConfigMaps they export go with it, each saying why.
func TestDeletingAParentDeletesOnceInAzure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ns     string
		policy metav1.DeletionPropagation
	}{
		{"parent-background", metav1.DeletePropagationBackground},
		{"parent-foreground", metav1.DeletePropagationForeground},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			t.Parallel()
			s := stacktest.New(t, tc.ns)
			tr := newTree(t, s, tc.ns, nil)
			rgID := tr.rg.Status.ID
			mark := lastSeq(s)
			order := watchDeletions(t, s, tc.ns)
			must(t, s.Client.Delete(t.Context(), tr.rg, client.PropagationPolicy(tc.policy)))
			waitGone(t, s, tr.all()...)
			if tc.policy == metav1.DeletePropagationForeground {
				// Every child blocks its owner's deletion: a foreground
				// deletion removes the group's object last, as Kubernetes
				// documents it.
				if got := order(len(tr.resources())); got[len(got)-1] != "ResourceGroup/"+tr.rg.Name {
					t.Errorf("objects gone in the order %q, want the ResourceGroup last", got)
				}
			}

			if got := writes(s, mark); len(got) != 1 || !strings.EqualFold(got[0], "DELETE "+rgID+" 202") {
				t.Errorf("ARM writes during the deletion: %q, want only the resource group's DELETE", got)
			}
			for _, o := range tr.resources() {
				if inAzure(s, o.AzureStatus().ID) {
					t.Errorf("%s is left in Azure", o.AzureStatus().ID)
				}
			}
			for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm"}) {
				if e.PrincipalID != s.Principal[tc.ns] {
					t.Errorf("%s %s as %s, not the namespace's principal", e.Method, e.Path, e.PrincipalID)
				}
			}
			waitEvent(t, s.Client, tc.ns, "ResourceGroup", tr.rg.Name, reconcilers.EventDeleted, "Deleted "+rgID+" in Azure")
			for _, o := range tr.children() {
				waitEvent(t, s.Client, tc.ns, kindOf(s, o), o.GetName(), reconcilers.EventDeletedWithOwner, o.AzureStatus().ID, "nothing is called in Azure for this object")
			}
		})
	}
}

// Deleting a resource group with propagationPolicy Orphan keeps its children
// as Kubernetes does (their objects stay, no longer its dependents) and so
// keeps their Azure resources too: the group, which ARM cannot delete without
// them, is left in Azure (event Detached naming them) and nothing is deleted.
// The orphans wait for an owner; a group object created again with the adopt
// annotation takes the group back, the orphans become its children again,
// and deleting it then deletes everything with one DELETE.
func TestDeletingAParentWithOrphanKeepsItsChildren(t *testing.T) {
	t.Parallel()
	const ns = "parent-orphan"
	s := stacktest.New(t, ns)
	ctx := t.Context()
	tr := newTree(t, s, ns, nil)
	rgID, oldUID := tr.rg.Status.ID, tr.rg.UID
	mark := lastSeq(s)
	must(t, s.Client.Delete(ctx, tr.rg, client.PropagationPolicy(metav1.DeletePropagationOrphan)))
	waitGone(t, s, tr.rg)

	waitEvent(t, s.Client, ns, "ResourceGroup", tr.rg.Name, reconcilers.EventDetached,
		rgID+" is left in Azure", "propagationPolicy Orphan", "StorageAccount "+tr.account.Name, "UserAssignedIdentity "+tr.uai.Name)
	for _, o := range []azurev1alpha1.Resource{tr.account, tr.uai} {
		testenv.Eventually(t, wait, o.GetName()+" orphaned and waiting for its owner", func() (bool, string) {
			c := readyOf(s, o)
			orphaned := !slices.ContainsFunc(o.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.UID == oldUID })
			return orphaned && c != nil && c.Reason == reconcilers.ReasonWaitingForOwner && strings.Contains(c.Message, tr.rg.Name),
				fmt.Sprintf("owners %v, Ready %s", o.GetOwnerReferences(), condString(c))
		})
	}
	for _, o := range tr.all()[1:] {
		if s.Gone(o) {
			t.Errorf("%T %s was deleted although orphaned", o, o.GetName())
		}
	}
	for _, o := range tr.resources() {
		if !inAzure(s, o.AzureStatus().ID) {
			t.Errorf("%s was deleted in Azure", o.AzureStatus().ID)
		}
	}
	if got := writes(s, mark); len(got) != 0 {
		t.Errorf("ARM writes after an orphaning deletion: %q", got)
	}

	// The group taken back: the orphans are its children again.
	again := stacktest.ResourceGroup(ns, tr.rg.Name, map[string]string{
		reconcilers.AnnotationAdopt: "true", reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicyManage),
	}, nil)
	s.Create(t, again)
	s.WaitReady(t, again, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	for _, o := range tr.children() {
		s.WaitReady(t, o, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	}
	testenv.Eventually(t, wait, "the orphans are dependents of the new group", func() (bool, string) {
		for _, o := range []client.Object{tr.account, tr.uai} {
			must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
			if !slices.ContainsFunc(o.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.UID == again.UID }) {
				return false, fmt.Sprintf("%s owners %v", o.GetName(), o.GetOwnerReferences())
			}
		}
		return true, ""
	})

	mark = lastSeq(s)
	must(t, s.Client.Delete(ctx, again))
	tr.rg = again
	waitGone(t, s, tr.all()...)
	if got := writes(s, mark); len(got) != 1 || !strings.EqualFold(got[0], "DELETE "+rgID+" 202") {
		t.Errorf("ARM writes: %q, want only the resource group's DELETE", got)
	}
	for _, o := range tr.resources() {
		if inAzure(s, o.AzureStatus().ID) {
			t.Errorf("%s is left in Azure", o.AzureStatus().ID)
		}
	}
}

// Azure refusing a parent's DELETE (403: the identity may not delete the
// group) leaves the group object Terminating with the reason in its Ready
// condition and a Warning event, naming the principal and the action and how
// to let go; nothing below it is deleted meanwhile. Once Azure accepts (the
// role granted), the next attempt deletes it and everything goes.
func TestParentDeletionRefusedByAzureSaysWhy(t *testing.T) {
	t.Parallel()
	const ns = "parent-refused"
	s := stacktest.New(t, ns)
	ctx := t.Context()
	tr := newTree(t, s, ns, nil)
	rgID := tr.rg.Status.ID
	s.Emu.SetFaults(emulator.Faults{FailNext: []emulator.FailRule{{
		ResourceType: "Microsoft.Resources/resourceGroups", Method: http.MethodDelete, Count: 1, Status: http.StatusForbidden, Code: "AuthorizationFailed",
		Message: fmt.Sprintf("The client '%s' with object id '%s' does not have authorization to perform action "+
			"'Microsoft.Resources/subscriptions/resourceGroups/delete' over scope '%s' or the scope is invalid.", s.ClientID[ns], s.Principal[ns], rgID),
	}}})
	mark := lastSeq(s)
	must(t, s.Client.Delete(ctx, tr.rg))

	testenv.Eventually(t, wait, "the refusal in Ready", func() (bool, string) {
		c := readyOf(s, tr.rg)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == reconcilers.ReasonAuthorizationFailed &&
			strings.Contains(c.Message, "cannot delete "+rgID+" in Azure") && strings.Contains(c.Message, "resourceGroups/delete") &&
			strings.Contains(c.Message, s.Principal[ns]) && strings.Contains(c.Message, "detach-on-delete"), condString(c)
	})
	waitEvent(t, s.Client, ns, "ResourceGroup", tr.rg.Name, reconcilers.ReasonAuthorizationFailed, "cannot delete "+rgID)
	for _, o := range tr.all() {
		if s.Gone(o) {
			t.Errorf("%T %s is gone while its group's deletion is refused", o, o.GetName())
		}
	}
	for _, o := range tr.resources() {
		if !inAzure(s, o.AzureStatus().ID) {
			t.Errorf("%s was deleted in Azure", o.AzureStatus().ID)
		}
	}

	// Azure accepts now; the operator retries by itself (AuthorizationFailed:
	// within 5 minutes), and at once when the object changes.
	s.Touch(t, tr.rg, "retry")
	waitGone(t, s, tr.all()...)
	if got := writes(s, mark); len(got) != 2 || !strings.EqualFold(got[0], "DELETE "+rgID+" 403") || !strings.EqualFold(got[1], "DELETE "+rgID+" 202") {
		t.Errorf("ARM writes: %q, want the refused and the accepted DELETE of the group only", got)
	}
	for _, o := range tr.resources() {
		if inAzure(s, o.AzureStatus().ID) {
			t.Errorf("%s is left in Azure", o.AzureStatus().ID)
		}
	}
}

// A child created while its owner is being deleted (here the owner's object
// is held by a finalizer of someone else's after its Azure group is gone)
// waits and says why, not "to be Ready", and nothing is created for it.
func TestChildOfAnOwnerBeingDeletedSaysSo(t *testing.T) {
	t.Parallel()
	const ns = "owner-going"
	s := stacktest.New(t, ns)
	ctx := t.Context()
	const hold = "test.aztenant.io/hold"
	rg := stacktest.ResourceGroup(ns, ns+"-app", nil, nil)
	rg.Finalizers = []string{hold}
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	t.Cleanup(func() {
		base := rg.DeepCopy()
		rg.Finalizers = nil
		_ = s.Client.Patch(context.Background(), rg, client.MergeFrom(base))
	})
	must(t, s.Client.Delete(ctx, rg))
	testenv.Eventually(t, wait, "the group deleted in Azure, its object held", func() (bool, string) {
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
		return slices.Equal(rg.Finalizers, []string{hold}), fmt.Sprint(rg.Finalizers)
	})
	mark := lastSeq(s)
	child := &storagev1alpha1.StorageAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ownergoingst"},
		Spec: storagev1alpha1.StorageAccountSpec{Owner: &azurev1alpha1.OwnerReference{Name: rg.Name}, Location: stacktest.Location,
			Kind: "StorageV2", Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"}},
	}
	s.Create(t, child)
	testenv.Eventually(t, wait, "the child waiting for an owner not being deleted", func() (bool, string) {
		c := readyOf(s, child)
		return c != nil && c.Reason == reconcilers.ReasonWaitingForOwner && strings.Contains(c.Message, "is being deleted"), condString(c)
	})
	if got := writes(s, mark); len(got) != 0 {
		t.Errorf("ARM writes for a child of an owner being deleted: %q", got)
	}
}
