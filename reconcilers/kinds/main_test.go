package kinds_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/e2e/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testenv"
	"github.com/aztenant/aztenant/tenancy"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	tenantID = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	subID    = "00000000-0000-0000-0000-0000000000bb"
)

// stack is the operator running against the emulator for one test's namespaces.
type stack struct {
	env   *testenv.Env
	emu   *emulator.Emulator
	c     client.Client
	cloud identity.Cloud
	// principal is the object ID of each namespace's identity.
	principal map[string]string
	parts     *operator.Parts
	// cfg and served start the operator again after stopManager.
	cfg         operator.Config
	served      tenancy.ServeMode
	stopManager func()
}

// startManager starts the operator (after stopManager: a fresh one, as after
// a crash or a rollout).
func (s *stack) startManager(t testing.TB) {
	t.Helper()
	scheme, err := operator.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(s.env.Config, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}, // one manager per test
		Cache:      operator.CacheOptions(s.served),
	})
	if err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	cfg := s.cfg
	cfg.Cloud, cfg.Served = s.cloud, s.served
	parts, err := operator.Setup(mctx, mgr, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s.parts = parts
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	var once sync.Once
	s.stopManager = func() { once.Do(func() { cancel(); <-done }) }
}

// newStack onboards each namespace (an app registration federated with its
// ServiceAccount "azure", Contributor on the subscription, an Identity
// "default") under a Tenant allowing resource groups named like the namespace
// followed by "-*", in westeurope, and starts the operator for those namespaces.
func newStack(t testing.TB, namespaces ...string) *stack {
	return newStackWith(t, operator.Config{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond, Workers: 2}, namespaces...)
}

// newStackWith is newStack with the operator's settings (Cloud and Served are
// filled in).
func newStackWith(t testing.TB, cfg operator.Config, namespaces ...string) *stack {
	t.Helper()
	env := testenv.Get(t)
	seed := emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: tenantID}},
		Subscriptions:  []emulator.Subscription{{ID: subID, TenantID: tenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
	}
	// The platform principal creates things outside aztenant (adoption tests).
	seed.Principals = append(seed.Principals, emulator.Principal{ClientID: platformClientID, TenantID: tenantID, ClientSecret: platformSecret,
		Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + subID}}})
	clientIDs := map[string]string{}
	for i, ns := range namespaces {
		cid := strings.Replace("cccccccc-0000-0000-0000-00000000000X", "X", string(rune('a'+i)), 1)
		clientIDs[ns] = cid
		seed.Principals = append(seed.Principals, emulator.Principal{
			ClientID: cid, TenantID: tenantID, DisplayName: ns,
			FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL, Subject: "system:serviceaccount:" + ns + ":azure", Audiences: []string{identity.TokenAudience}}},
			Roles:                []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + subID}},
		})
	}
	emu, err := emulator.New(emulator.Config{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	s := &stack{env: env, emu: emu, c: env.Client, principal: map[string]string{},
		cloud: identity.Cloud{AuthorityHost: emu.URL() + "/", ARMEndpoint: emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: emu.CAPEM()}}

	ctx := t.Context()
	for _, ns := range namespaces {
		s.principal[ns], _ = emu.PrincipalID(clientIDs[ns])
		s.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		s.create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: ns, Annotations: map[string]string{
			identity.AnnotationClientID: clientIDs[ns], identity.AnnotationTenantID: tenantID,
		}}})
		s.create(t, &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns},
			Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "azure", SubscriptionID: subID}})
		s.create(t, &tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ns},
			Spec: tenancyv1alpha1.TenantSpec{Namespaces: []string{ns}, Subscriptions: []string{subID},
				ResourceGroups: []string{ns + "-*"}, Locations: []string{"westeurope"}}})
	}

	s.cfg, s.served = cfg, tenancy.ServeList(namespaces...)
	s.startManager(t)
	t.Cleanup(func() { s.stopManager() })
	// Wait for the Identities, so their status updates do not re-trigger the
	// resources under test and call counts are exact.
	for _, ns := range namespaces {
		until(t, "Identity of "+ns+" Ready", func() bool {
			var id identityv1alpha1.Identity
			if err := s.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &id); err != nil {
				return false
			}
			c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
			return c != nil && c.Status == metav1.ConditionTrue
		})
	}
	return s
}

func (s *stack) create(t testing.TB, obj client.Object) {
	t.Helper()
	if err := s.c.Create(t.Context(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

// waitReady waits until obj's Ready condition has the status and reason.
func (s *stack) waitReady(t testing.TB, obj azurev1alpha1.Resource, status metav1.ConditionStatus, reason string) {
	t.Helper()
	var last *metav1.Condition
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := s.c.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		last = meta.FindStatusCondition(obj.AzureStatus().Conditions, "Ready")
		if last != nil && last.Status == status && last.Reason == reason && last.ObservedGeneration == obj.GetGeneration() {
			return
		}
	}
	t.Fatalf("%s: Ready is not %s/%s after 30s; last %+v", obj.GetName(), status, reason, last)
}

// armCalls returns the ARM calls on paths ending with suffix, in order.
func (s *stack) armCalls(suffix string) []emulator.AuditEntry {
	var out []emulator.AuditEntry
	for _, e := range s.emu.Audit(emulator.AuditFilter{Service: "arm"}) {
		if strings.HasSuffix(strings.ToLower(e.Path), strings.ToLower(suffix)) {
			out = append(out, e)
		}
	}
	return out
}

func methods(es []emulator.AuditEntry) string {
	var m []string
	for _, e := range es {
		m = append(m, e.Method)
	}
	return strings.Join(m, " ")
}

const (
	platformClientID = "dddddddd-0000-0000-0000-000000000001"
	platformSecret   = "platform-secret"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func t0() context.Context { return context.Background() }
