package lifecycle_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	networkv1alpha1 "github.com/aztenant/aztenant/api/network/v1alpha1"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
)

// deletedCRD is the CRD TestDeletingACRDLeavesItsResourcesInAzure deletes: the
// package's control plane has it beside testenv.TestKinds.
const deletedCRD = "natgateways.network.aztenant.io"

// Deleting a CRD deletes every object of its kind (an uninstall by hand, a
// Helm upgrade from a chart that carried the CRDs without keep): nobody
// asked for their Azure resources to go, so each is left in Azure (event
// Detached naming the CRD) and no DELETE is sent. Installed again, the kind
// is served again and the object adopts its resource back.
func TestDeletingACRDLeavesItsResourcesInAzure(t *testing.T) {
	const ns = "crd-deleted"
	const crdName = deletedCRD
	cfg := stacktest.DefaultConfig()
	cfg.Kinds = stacktest.TestKindsAnd(crdName)
	s := stacktest.NewWith(t, cfg, ns)
	rg := stacktest.ResourceGroup(ns, ns+"-app", nil, nil)
	s.Create(t, rg)
	gw := &networkv1alpha1.NatGateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "egress"},
		Spec: networkv1alpha1.NatGatewaySpec{Owner: &azurev1alpha1.OwnerReference{Name: rg.Name}, Location: stacktest.Location}}
	s.Create(t, gw)
	s.WaitReady(t, gw, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id := gw.Status.ID
	mark := lastSeq(s)

	crd := &apiextensionsv1.CustomResourceDefinition{}
	must(t, s.Client.Get(t.Context(), client.ObjectKey{Name: crdName}, crd))
	t.Cleanup(func() { reinstall(t, s, crdName) })
	must(t, s.Client.Delete(t.Context(), crd))
	testenv.Eventually(t, wait, "the CRD and its object gone", func() (bool, string) {
		err := s.Client.Get(context.Background(), client.ObjectKey{Name: crdName}, &apiextensionsv1.CustomResourceDefinition{})
		return apierrors.IsNotFound(err), "get CRD: " + errString(err)
	})
	if got := writes(s, mark); len(got) != 0 {
		t.Errorf("ARM writes after the CRD's deletion: %q, want none", got)
	}
	if !inAzure(s, id) {
		t.Fatalf("%s was deleted in Azure with its CRD", id)
	}
	waitEvent(t, s.Client, ns, "NatGateway", gw.Name, reconcilers.EventDetached, id, "is left in Azure", crdName, "never deletes Azure resources")

	// Installed again: served again, and the object created again adopts
	// the resource it left (the same namespace's marker) without a PUT.
	reinstall(t, s, crdName)
	again := &networkv1alpha1.NatGateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "egress", Annotations: map[string]string{reconcilers.AnnotationAdopt: "true"}},
		Spec: networkv1alpha1.NatGatewaySpec{Owner: &azurev1alpha1.OwnerReference{Name: rg.Name}, Location: stacktest.Location}}
	s.Create(t, again)
	s.WaitReady(t, again, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if again.Status.ID != id {
		t.Errorf("created again: status.id %q, want %q", again.Status.ID, id)
	}
}

// reinstall creates the CRD named from the embedded ones, if missing, and
// waits until it is Established.
func reinstall(t *testing.T, s *stacktest.Stack, name string) {
	t.Helper()
	c, err := api.CRD(name)
	must(t, err)
	testenv.Eventually(t, wait, "CRD "+name+" created again", func() (bool, string) {
		err := s.Client.Create(context.Background(), c.DeepCopy())
		return err == nil || apierrors.IsAlreadyExists(err), "create: " + errString(err)
	})
	must(t, crdinstall.WaitEstablished(context.Background(), s.Client, []string{name}, time.Minute))
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return strings.TrimSpace(err.Error())
}
