package kinds_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	networkv1alpha1 "github.com/aztenant/aztenant/api/network/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/reconcilers"
)

// With the library's constraints given to the operator, an object that no
// admission webhook stopped (no Gatekeeper here) is stopped at reconcile:
// Ready=False PolicyDenied with the template's message, and no ARM call,
// for a hand-written kind (StorageAccount) and a generated one (a security
// rule opening SSH to the internet).
func TestOperatorEnforcesThePolicyLibrary(t *testing.T) {
	t.Parallel()
	constraints, err := policy.ReadManifests("../../policy/library/publicnetworkaccess/samples/deny-public-network/constraint.yaml",
		"../../policy/library/networksecurityrule/samples/deny-internet-management-ports/constraint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const ns = "pol"
	s := newStackWith(t, operator.Config{Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond, Workers: 2}, PolicyConstraints: constraints,
		Kinds: stacktest.TestKindsAnd("network.aztenant.io")}, ns)
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

	// A generated kind too: a security rule opening SSH to the internet.
	nsg := &networkv1alpha1.NetworkSecurityGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pol-nsg"},
		Spec: networkv1alpha1.NetworkSecurityGroupSpec{Owner: &azurev1alpha1.OwnerReference{Name: "pol-rg"}, Location: "westeurope"}}
	s.Create(t, nsg)
	rule := func(name, source, port string) *networkv1alpha1.NetworkSecurityGroupsSecurityRule {
		return &networkv1alpha1.NetworkSecurityGroupsSecurityRule{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: networkv1alpha1.NetworkSecurityGroupsSecurityRuleSpec{
				Owner: &azurev1alpha1.OwnerReference{Name: "pol-nsg"}, Priority: 100, Access: "Allow", Direction: "Inbound", Protocol: "Tcp",
				SourceAddressPrefix: source, SourcePortRange: "*", DestinationAddressPrefix: "*", DestinationPortRange: port,
			},
		}
	}
	ssh, https := rule("ssh-from-internet", "Internet", "22"), rule("https-from-internet", "Internet", "443")
	s.Create(t, ssh)
	s.Create(t, https)
	s.WaitReady(t, https, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, ssh, metav1.ConditionFalse, policy.ReasonPolicyDenied)
	msg = meta.FindStatusCondition(ssh.Status.Conditions, "Ready").Message
	if want := "[AztenantNetworkSecurityRule/deny-internet-management-ports] NetworkSecurityGroupsSecurityRule ssh-from-internet allows inbound traffic from the internet (source Internet) to port 22"; !strings.Contains(msg, want) {
		t.Errorf("message %q lacks %q", msg, want)
	}
	if calls := s.ARMCalls("/securityRules/ssh-from-internet"); len(calls) != 0 {
		t.Errorf("ARM calls were made for a denied security rule: %s", methods(calls))
	}
}
