package kinds_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/reconcilers"
)

// With the library's constraints given to the operator, an object that no
// admission webhook stopped (no Gatekeeper here) is stopped at reconcile:
// Ready=False PolicyDenied with the template's message, and no ARM call.
func TestOperatorEnforcesThePolicyLibrary(t *testing.T) {
	constraints, err := policy.ReadManifests("../../policy/library/publicnetworkaccess/samples/deny-public-network/constraint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const ns = "pol"
	s := newStackWith(t, operator.Config{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond, Workers: 2, PolicyConstraints: constraints}, ns)
	rg := resourceGroup(ns, "pol-rg", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	account := func(name, access string) *storagev1alpha1.StorageAccount {
		return &storagev1alpha1.StorageAccount{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: storagev1alpha1.StorageAccountSpec{
				Owner: &azurev1alpha1.OwnerReference{Name: "pol-rg"}, Location: "westeurope", Kind: "StorageV2",
				Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"}, PublicNetworkAccess: access,
			},
		}
	}
	public, private := account("polpublic", "Enabled"), account("polprivate", "Disabled")
	s.Create(t, public)
	s.Create(t, private)
	s.WaitReady(t, private, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, public, metav1.ConditionFalse, policy.ReasonPolicyDenied)
	msg := meta.FindStatusCondition(public.Status.Conditions, "Ready").Message
	if !strings.Contains(msg, "allows public network access") || !strings.Contains(msg, "AztenantPublicNetworkAccess/deny-public-network") {
		t.Errorf("message %q lacks the constraint and its message", msg)
	}
	if calls := s.ARMCalls("/storageAccounts/polpublic"); len(calls) != 0 {
		t.Errorf("ARM calls were made for a denied object: %s", methods(calls))
	}
}
