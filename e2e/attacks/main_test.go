package attacks_test

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/policy"
)

// The cluster's own controllers run: the attacks use Kubernetes' aggregated
// edit role, which kube-controller-manager fills.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.WithControllerManager(), testenv.WithKinds(attackKinds))
}

const subID = stacktest.SubscriptionID

// attack is one attacker namespace and one victim namespace, each onboarded
// as a team (stacktest), with the operator enforcing the example constraints
// users get (examples/policy/constraints.yaml) as a platform would configure
// them, and federated credentials only for this cluster's issuer.
type attack struct {
	*stacktest.Stack
	attacker, victim string
	// since is the audit sequence number when the attack began; checks look
	// only at calls after it, so legitimate setup is not counted.
	since uint64
	// victimOwn are the ARM IDs of the victim's Ready setup objects and
	// their collections (lower case): the victim's operator may still read
	// them after the attack began (a reconcile queued while the object was
	// not yet Ready).
	victimOwn map[string]bool
}

// attackKinds are the kinds the attacks use besides stacktest.TestKinds: an operator
// serving all of them would start an informer and a controller for each in every stack.
var attackKinds = stacktest.TestKindsAnd(
	"network.aztenant.io/NetworkInterface", "network.aztenant.io/VirtualNetwork", "network.aztenant.io/VirtualNetworksSubnet",
	"network.aztenant.io/PrivateEndpoint", "network.aztenant.io/NetworkSecurityGroup", "network.aztenant.io/NetworkSecurityGroupsSecurityRule",
	"documentdb.aztenant.io/DatabaseAccount", "documentdb.aztenant.io/SqlRoleDefinition",
	"eventhub.aztenant.io/Namespace", "eventhub.aztenant.io/NamespacesEventhub",
	"sql.aztenant.io/Server", "keyvault.aztenant.io/Vault", "insights.aztenant.io/Component",
	"containerregistry.aztenant.io/Registry", "cognitiveservices.aztenant.io/Account", "app.aztenant.io/ManagedEnvironment")

// attackConfig is the operator's configuration of an attack's stack.
func attackConfig() operator.Config {
	cfg := stacktest.DefaultConfig()
	cfg.Kinds = attackKinds
	return cfg
}

func newAttack(t *testing.T, id string) *attack {
	t.Helper()
	cfg := attackConfig()
	cfg.PolicyConstraints = constraints(t, testenv.Get(t).IssuerURL)
	a := &attack{attacker: id + "-attacker", victim: id + "-victim"}
	a.Stack = stacktest.NewWith(t, cfg, a.attacker, a.victim)
	a.begin()
	return a
}

// begin marks the start of the attack: what was done so far was setup.
func (a *attack) begin() {
	if last := a.Emu.Audit(emulator.AuditFilter{Limit: 1}); len(last) > 0 {
		a.since = last[0].Seq
	}
}

// exampleConstraints are the constraints docs/policy.md and SECURITY.md
// point users to, and the demo enforces.
const exampleConstraints = "../../examples/policy/constraints.yaml"

// Demo IDs in the example constraints, which a platform replaces with its
// own: here the stack's. The demo's two onboarded groups (allowed scopes and
// unmanaged owners) become the stack's subscription: each namespace's groups
// are a pattern (<namespace>-*), which the Tenant guard bounds.
const (
	demoTenant       = "8f2c1c9e-0d7a-4c53-9a37-3f1d2b6a0c11"
	demoSubscription = "5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c"
	demoGroupA       = "/subscriptions/" + demoSubscription + "/resourceGroups/team-a-stack"
	demoGroupB       = "/subscriptions/" + demoSubscription + "/resourceGroups/team-b-aks"
)

// constraints are what the attack suite's operator enforces: the example
// constraints, with the stack's tenant and subscription for the demo's, and
// federated credentials only for this cluster's issuer and the credential's
// own namespace (the example leaves that one out: its issuer is the
// cluster's).
func constraints(t *testing.T, issuer string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(exampleConstraints)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(demoGroupA, "/subscriptions/"+subID, demoGroupB, "/subscriptions/"+subID,
		demoTenant, stacktest.TenantID, demoSubscription, subID).Replace(string(data))
	objs, err := policy.DecodeManifests(exampleConstraints, []byte(text+`
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: AztenantFederatedIdentityCredential
metadata:
  name: this-cluster-only
spec:
  match:
    kinds:
      - apiGroups: ["managedidentity.aztenant.io"]
        kinds: ["FederatedIdentityCredential"]
  parameters:
    issuer: `+issuer+`
`))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// allowReconcileAnnotations labels ns as a platform team lets a namespace
// adopt and set reconcile policies (restrict-reconcile-annotations).
func allowReconcileAnnotations(t *testing.T, a *attack, ns string) {
	t.Helper()
	var n corev1.Namespace
	if err := a.Client.Get(t.Context(), client.ObjectKey{Name: ns}, &n); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(n.DeepCopy())
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels["aztenant.io/allow-reconcile-annotations"] = "true"
	if err := a.Client.Patch(t.Context(), &n, patch); err != nil {
		t.Fatal(err)
	}
}

// denied waits until obj is refused with reason, and checks that the message
// names each of want.
func (a *attack) denied(t *testing.T, obj azurev1alpha1.Resource, reason string, want ...string) {
	t.Helper()
	a.WaitReady(t, obj, metav1.ConditionFalse, reason)
	msg := stacktest.ReadyMessage(obj)
	for _, w := range want {
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(w)) {
			t.Errorf("%s: message %q does not name %q", reason, msg, w)
		}
	}
}

// rejected checks that the API server refused a write as invalid, with a
// message naming each of want.
func rejected(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("the API server accepted the object")
	}
	if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
		t.Fatalf("want an invalid-object error, got %v", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
}

// contained checks the emulator's audit log since the attack began: Entra
// issued no token for the victim's identity to anything of the attacker's
// namespace, and every ARM call was made as the attacker's own principal,
// except the victim's own reads of its own setup objects: a reconcile of the
// victim's queued before the attack began may run after it, and a read is
// all it does to an object already Ready (noWrite checks that nothing was
// written by anyone).
func (a *attack) contained(t *testing.T) {
	t.Helper()
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "entra", ClientID: a.ClientID[a.victim]}) {
		if e.Status == 200 && strings.HasPrefix(e.Subject, "system:serviceaccount:"+a.attacker+":") {
			t.Errorf("Entra issued a token for the victim's identity to %s", e.Subject)
		}
	}
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "arm"}) {
		if e.PrincipalID == a.Principal[a.victim] && e.Method == "GET" && a.victimOwn[strings.ToLower(e.Path)] {
			continue
		}
		if e.PrincipalID != a.Principal[a.attacker] {
			t.Errorf("ARM %s %s as principal %s (client %s), not the attacker's own %s", e.Method, e.Path, e.PrincipalID, e.ClientID, a.Principal[a.attacker])
		}
	}
}

// noWrite checks that no ARM call since the attack began changed anything.
func (a *attack) noWrite(t *testing.T) {
	t.Helper()
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "arm"}) {
		if e.Method != "GET" && e.Method != "HEAD" {
			t.Errorf("ARM write %s %s (status %d) by %s", e.Method, e.Path, e.Status, e.PrincipalID)
		}
	}
}

// noCall checks that no ARM call since the attack began touched a path
// ending with suffix.
func (a *attack) noCall(t *testing.T, suffix string) {
	t.Helper()
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "arm"}) {
		if strings.HasSuffix(strings.ToLower(e.Path), strings.ToLower(suffix)) {
			t.Errorf("ARM %s %s was called", e.Method, e.Path)
		}
	}
}

// ready creates obj and waits until it is Ready: setup the attack builds on.
func (a *attack) ready(t *testing.T, obj azurev1alpha1.Resource) {
	t.Helper()
	a.Create(t, obj)
	a.WaitReady(t, obj, metav1.ConditionTrue, "Succeeded")
	if obj.GetNamespace() == a.victim {
		if a.victimOwn == nil {
			a.victimOwn = map[string]bool{}
		}
		id := strings.ToLower(obj.AzureStatus().ID)
		// Its drift check may read it in a listing of its collection.
		a.victimOwn[id], a.victimOwn[id[:strings.LastIndex(id, "/")]] = true, true
	}
}
