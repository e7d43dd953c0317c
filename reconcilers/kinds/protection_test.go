package kinds_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers"
)

// Deleting a namespace deletes its Identity and ServiceAccount along with its
// resources. They are kept until the resources no longer need them, so each
// resource can still delete itself in Azure and nothing is orphaned.
func TestIdentityOutlivesTheResourcesThatNeedIt(t *testing.T) {
	t.Parallel()
	const ns = "keep"
	s := newStack(t, ns)
	ctx := t.Context()
	rg := resourceGroup(ns, "keep-app", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	id := &identityv1alpha1.Identity{}
	sa := &corev1.ServiceAccount{}
	until(t, "protection finalizers", func() bool {
		must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, id))
		must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: identity.ProvisionerServiceAccount}, sa))
		return controllerutil.ContainsFinalizer(id, identity.ProtectionFinalizer) && controllerutil.ContainsFinalizer(sa, identity.ProtectionFinalizer)
	})

	// What a namespace deletion does, in the worst order.
	must(t, s.Client.Delete(ctx, sa))
	must(t, s.Client.Delete(ctx, id))
	must(t, s.Client.Delete(ctx, rg))

	until(t, "resource group deleted in Azure and released", func() bool { return s.Gone(rg) })
	if _, err := s.Emu.Resource(rgID("keep-app")); err == nil {
		t.Fatal("the resource group was orphaned in Azure")
	}
	until(t, "Identity and ServiceAccount released", func() bool { return s.Gone(id) && s.Gone(sa) })
}
