package kinds_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
)

// An Identity being deleted serves deletions only: it shows Terminating
// with the resources that still hold it, a Ready resource stops being
// updated, a resource created afterwards is refused with no ARM call (and
// does not hold the Identity back), a resource deleted meanwhile is deleted
// in Azure as the namespace's own principal, and once the last one is gone
// the Identity goes too.
func TestTerminatingIdentityServesDeletionsOnly(t *testing.T) {
	t.Parallel()
	const ns = "revoke"
	s := newStack(t, ns)
	ctx := t.Context()
	keep := resourceGroup(ns, "revoke-keep", nil, map[string]string{"team": "a"})
	gone := resourceGroup(ns, "revoke-gone", nil, nil)
	s.Create(t, keep)
	s.Create(t, gone)
	s.WaitReady(t, keep, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, gone, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	id := &identityv1alpha1.Identity{}
	key := client.ObjectKey{Namespace: ns, Name: "default"}
	until(t, "protection finalizer on the Identity", func() bool {
		must(t, s.Client.Get(ctx, key, id))
		return controllerutil.ContainsFinalizer(id, identity.ProtectionFinalizer)
	})
	revoked := lastSeq(s.Stack)
	must(t, s.Client.Delete(ctx, id))

	var msg string
	until(t, "Identity Terminating", func() bool {
		must(t, s.Client.Get(ctx, key, id))
		c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != identity.ReasonTerminating {
			return false
		}
		msg = c.Message
		return true
	})
	for _, want := range []string{"2 resource(s) of namespace revoke still hold it", "ResourceGroup revoke-gone", "ResourceGroup revoke-keep", "serves only deletions"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Identity's Terminating message %q lacks %q", msg, want)
		}
	}

	// The Ready resource group is no longer updated, at once.
	s.WaitReady(t, keep, metav1.ConditionFalse, reconcilers.ReasonIdentityTerminating)
	if m := stacktest.ReadyMessage(keep); !strings.Contains(m, "Identity revoke/default is being deleted") || !strings.Contains(m, "detach-on-delete") {
		t.Errorf("message %q does not say what is being removed and what to do", m)
	}

	// A resource group created after the deletion started is refused before Azure.
	late := resourceGroup(ns, "revoke-late", nil, nil)
	s.Create(t, late)
	s.WaitReady(t, late, metav1.ConditionFalse, reconcilers.ReasonIdentityTerminating)
	if calls := s.ARMCalls("/resourceGroups/revoke-late"); len(calls) != 0 {
		t.Errorf("ARM calls for a resource group created under a Terminating Identity: %s", methods(calls))
	}
	if controllerutil.ContainsFinalizer(late, reconcilers.Finalizer) {
		t.Error("the refused resource group holds a finalizer, and so the Identity")
	}

	// An existing one deleted meanwhile is deleted in Azure, as the namespace.
	mark := lastSeq(s.Stack)
	must(t, s.Client.Delete(ctx, gone))
	until(t, "revoke-gone deleted", func() bool { return s.Gone(gone) })
	if _, err := s.Emu.Resource(rgID("revoke-gone")); err == nil {
		t.Error("revoke-gone was orphaned in Azure")
	}
	deletes := s.Emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm", Method: "DELETE"})
	if len(deletes) != 1 || deletes[0].PrincipalID != s.Principal[ns] {
		t.Errorf("DELETE calls %+v, want one by the namespace's principal %s", deletes, s.Principal[ns])
	}
	until(t, "Terminating names the one left", func() bool {
		must(t, s.Client.Get(ctx, key, id))
		c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		return c != nil && strings.Contains(c.Message, "1 resource(s)") && !strings.Contains(c.Message, "revoke-gone")
	})

	// No PUT was made while the Identity was Terminating.
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: revoked, Service: "arm", Method: "PUT"}) {
		t.Errorf("PUT %s under a Terminating Identity", e.Path)
	}

	must(t, s.Client.Delete(ctx, keep))
	until(t, "Identity released once nothing holds it", func() bool { return s.Gone(keep) && s.Gone(id) })
	if _, err := s.Emu.Resource(rgID("revoke-keep")); err == nil {
		t.Error("revoke-keep was orphaned in Azure")
	}
	s.WaitReady(t, late, metav1.ConditionFalse, identity.ReasonIdentityNotFound)
}

// lastSeq is the emulator's audit position now.
func lastSeq(s *stacktest.Stack) uint64 {
	if e := s.Emu.Audit(emulator.AuditFilter{Limit: 1}); len(e) > 0 {
		return e[0].Seq
	}
	return 0
}
