package identity_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// startController runs the Identity controller in a manager until the test
// ends, watching only the test's namespaces (others belong to other tests).
func startController(t *testing.T, w *world, namespaces ...string) {
	t.Helper()
	startControllerWith(t, w, nil, namespaces...)
}

// startControllerWith is startController with protection (inUse) and returns
// the controller's credentials.
func startControllerWith(t *testing.T, w *world, inUse identity.InUseFunc, namespaces ...string) *identity.Credentials {
	t.Helper()
	mgr, err := ctrl.NewManager(w.env.OperatorConfig, ctrl.Options{
		Logger: zap.New(zap.WriteTo(testWriter{t})), // this test's: the tests run in parallel
		Scheme: w.env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}, // one manager per test
		Cache:      cache.Options{DefaultNamespaces: nsConfig(namespaces)},
	})
	if err != nil {
		t.Fatal(err)
	}
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: mgr.GetClient()}, time.Hour)
	creds := identity.NewCredentials(tokens, w.opts)
	c := &identity.Controller{
		Client:        mgr.GetClient(),
		Broker:        identity.NewBroker(mgr.GetClient(), creds),
		Cloud:         w.cloud,
		Recorder:      mgr.GetEventRecorder("identity"),
		RetryRejected: 500 * time.Millisecond,
		InUse:         inUse,
	}
	if err := c.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return creds
}

// eventually waits until ok holds for what get returns, and returns that.
func eventually[T any](t testing.TB, what string, get func() (T, error), ok func(T) bool) T {
	t.Helper()
	var last T
	testenv.Eventually(t, 30*time.Second, what, func() (bool, string) {
		v, err := get()
		if err != nil {
			return false, err.Error()
		}
		last = v
		return ok(v), fmt.Sprintf("%+v", v)
	})
	return last
}

func getIdentity(t *testing.T, c client.Client, ns, name string) func() (*identityv1alpha1.Identity, error) {
	return func() (*identityv1alpha1.Identity, error) {
		var id identityv1alpha1.Identity
		err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, &id)
		return &id, err
	}
}

func readyIs(status metav1.ConditionStatus, reason string) func(*identityv1alpha1.Identity) bool {
	return func(id *identityv1alpha1.Identity) bool {
		c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		return c != nil && c.Status == status && c.Reason == reason && c.ObservedGeneration == id.Generation
	}
}

// The Identity's status tells the platform team whether federation works and
// as whom, and follows changes of the ServiceAccount.
func TestIdentityStatusFollowsServiceAccount(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ctl-a", "ctl-b")
	c := w.c
	tenantNamespace(t, c, "ctl-a", clientA)
	startController(t, w, "ctl-a")

	id := eventually(t, "Identity Ready", getIdentity(t, c, "ctl-a", "default"), readyIs(metav1.ConditionTrue, identity.ReasonExchanged))
	if id.Status.PrincipalID != w.principal(t, clientA) || id.Status.ClientID != clientA || id.Status.TenantID != tenantID {
		t.Errorf("status %+v, want principal of %s", id.Status, clientA)
	}
	if id.Status.LastExchangeTime == nil {
		t.Error("lastExchangeTime not set")
	}

	// The platform team points the ServiceAccount at another identity.
	var sa corev1.ServiceAccount
	must(t, c.Get(t.Context(), client.ObjectKey{Namespace: "ctl-a", Name: identity.ProvisionerServiceAccount}, &sa))
	sa.Annotations[identity.AnnotationClientID] = clientA2
	must(t, c.Update(t.Context(), &sa))
	eventually(t, "principal follows the client-id annotation", getIdentity(t, c, "ctl-a", "default"), func(id *identityv1alpha1.Identity) bool {
		return id.Status.PrincipalID == w.principal(t, clientA2)
	})

	must(t, c.Delete(t.Context(), &sa))
	id = eventually(t, "ServiceAccountNotFound", getIdentity(t, c, "ctl-a", "default"), readyIs(metav1.ConditionFalse, identity.ReasonServiceAccountNotFound))
	if msg := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady).Message; !strings.Contains(msg, `ServiceAccount "`+identity.ProvisionerServiceAccount+`"`) {
		t.Errorf("message %q does not name the ServiceAccount", msg)
	}
}

// An Identity naming another team's client ID is reported FederationRejected
// with Entra's explanation.
func TestIdentityWithForeignClientIDIsRejected(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ctl-victim", "ctl-other")
	c := w.c
	tenantNamespaceWithoutIdentity(t, c, "ctl-thief")
	must(t, c.Create(t.Context(), &identityv1alpha1.Identity{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ctl-thief", Name: "default"},
		Spec:       identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: clientA, TenantID: tenantID, SubscriptionID: subID},
	}))
	startController(t, w, "ctl-thief")

	id := eventually(t, "FederationRejected", getIdentity(t, c, "ctl-thief", "default"), readyIs(metav1.ConditionFalse, identity.ReasonFederationRejected))
	msg := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady).Message
	for _, want := range []string{"AADSTS70021", "system:serviceaccount:ctl-thief:" + identity.ProvisionerServiceAccount} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if id.Status.PrincipalID != "" {
		t.Errorf("principal %q reported for a rejected identity", id.Status.PrincipalID)
	}
	// Entra's trace and correlation IDs change on every refusal; the status
	// keeps none of them, so the retries (every 0.5 s here) write nothing and
	// do not trigger themselves.
	if strings.Contains(msg, "Trace ID") || strings.Contains(msg, "Correlation ID") {
		t.Errorf("message keeps per-attempt IDs: %q", msg)
	}
	refusals := func() (n int) {
		for _, e := range w.emu.Audit(emulator.AuditFilter{Service: "entra", ClientID: clientA}) {
			if e.ErrorCode == "AADSTS70021" {
				n++
			}
		}
		return n
	}
	start := refusals()
	// For 3 s the refusals must stay few: a loop would pass 12 well before.
	looping := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 3*time.Second, true, func(context.Context) (bool, error) {
		return refusals()-start > 12, nil
	})
	if looping == nil {
		t.Fatalf("%d refused exchanges in under 3 s: the controller is retrying in a loop", refusals()-start)
	}
	if again, err := getIdentity(t, c, "ctl-thief", "default")(); err != nil || again.ResourceVersion != id.ResourceVersion {
		t.Errorf("the rejected Identity was rewritten (resourceVersion %s -> %s, %v)", id.ResourceVersion, again.ResourceVersion, err)
	}
}

// Entra ID down (503) is not a federation problem: the Identity reports
// EntraUnavailable with Entra's answer, and recovers by itself.
func TestIdentityWhileEntraIsDown(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ctl-down", "ctl-down-b")
	c := w.c
	tenantNamespace(t, c, "ctl-down", clientA)
	w.emu.SetFaults(emulator.Faults{EntraUnavailable: true})
	startController(t, w, "ctl-down")
	id := eventually(t, "EntraUnavailable", getIdentity(t, c, "ctl-down", "default"), readyIs(metav1.ConditionFalse, identity.ReasonEntraUnavailable))
	if msg := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady).Message; !strings.Contains(msg, "HTTP 503") || !strings.Contains(msg, "AADSTS90033") {
		t.Errorf("message %q does not say Entra answered 503 and why", msg)
	}
	w.emu.SetFaults(emulator.Faults{})
	eventually(t, "Ready after Entra is back", getIdentity(t, c, "ctl-down", "default"), readyIs(metav1.ConditionTrue, identity.ReasonExchanged))
}

// testWriter sends controller logs to the test's log, shown when it fails.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func nsConfig(namespaces []string) map[string]cache.Config {
	m := map[string]cache.Config{}
	for _, ns := range namespaces {
		m[ns] = cache.Config{}
	}
	return m
}

// The protection finalizer the controller puts on the ServiceAccount, and
// other changes that do not touch its workload-identity annotations, keep the
// identity's credential and cached token: one exchange serves every resource
// of the namespace. Changing the client ID drops them.
func TestServiceAccountUpdatesKeepTheExchangedToken(t *testing.T) {
	t.Parallel()
	const ns = "keep-token"
	w := newWorld(t, ns, "keep-token-b")
	tenantNamespace(t, w.c, ns, clientA)
	creds := startControllerWith(t, w, func(context.Context, string) ([]identity.Holder, error) {
		return []identity.Holder{{Kind: "ResourceGroup", Name: "x"}}, nil
	}, ns)
	ctx := t.Context()
	eventually(t, "Identity Ready", getIdentity(t, w.c, ns, "default"), func(id *identityv1alpha1.Identity) bool {
		c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue
	})
	getSA := func() (*corev1.ServiceAccount, error) {
		var sa corev1.ServiceAccount
		err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: identity.ProvisionerServiceAccount}, &sa)
		return &sa, err
	}
	eventually(t, "protection finalizer on the ServiceAccount", getSA, func(sa *corev1.ServiceAccount) bool {
		return slices.Contains(sa.Finalizers, identity.ProtectionFinalizer)
	})
	// Let the finalizer's update event reach the controller.
	time.Sleep(time.Second)
	if n := creds.Exchanges(); n != 1 {
		t.Errorf("%d exchanges with Entra for one Identity made Ready", n)
	}
	sa, err := getSA()
	must(t, err)
	sa.Labels = map[string]string{"team": "a"}
	must(t, w.c.Update(ctx, sa))
	time.Sleep(time.Second)
	id, err := getIdentity(t, w.c, ns, "default")()
	must(t, err)
	res, err := identity.ResolveIdentity(ctx, w.c, id)
	must(t, err)
	cred, err := creds.For(res)
	must(t, err)
	if _, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{w.cloud.ARMScope()}, EnableCAE: true}); err != nil {
		t.Fatal(err)
	}
	if n := creds.Exchanges(); n != 1 {
		t.Errorf("%d exchanges with Entra after a label change on the ServiceAccount and a resource's request, want the first 1", n)
	}

	sa, err = getSA()
	must(t, err)
	sa.Annotations[identity.AnnotationClientID] = clientA2
	must(t, w.c.Update(ctx, sa))
	eventually(t, "Identity acting as the new client ID", getIdentity(t, w.c, ns, "default"), func(id *identityv1alpha1.Identity) bool {
		return id.Status.ClientID == clientA2 && id.Status.PrincipalID == w.principal(t, clientA2)
	})
}
