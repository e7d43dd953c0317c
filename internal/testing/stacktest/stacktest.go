package stacktest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/go-logr/logr"
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
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/emulator/jwks"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
)

// The emulator's directory: one Entra tenant and one subscription, and the
// platform principal (Owner on the subscription, with a client secret) that
// stands for an administrator acting outside aztenant.
const (
	TenantID         = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	SubscriptionID   = "00000000-0000-0000-0000-0000000000bb"
	PlatformClientID = "dddddddd-0000-0000-0000-000000000001"
	PlatformSecret   = "platform-secret"
	// Location is the one location every Tenant allows.
	Location = "westeurope"
)

// Stack is the operator running against the emulator for one test's namespaces.
type Stack struct {
	Env    *testenv.Env
	Emu    *emulator.Emulator
	Client client.Client
	Cloud  identity.Cloud
	// ClientID and Principal are each namespace's app registration: its
	// client ID and its object ID.
	ClientID  map[string]string
	Principal map[string]string
	// Parts of the running operator (replaced by StartManager).
	Parts *operator.Parts

	cfg    operator.Config
	served tenancy.ServeMode
	stop   func()
	log    logr.Logger
	// extraIdentities counts AddIdentity's app registrations (their client IDs).
	extraIdentities int
}

// PrincipalReplication is how long a new principal is unknown to role
// assignments in the stack's emulator (Entra's replication, shortened).
const PrincipalReplication = 2 * time.Second

// Patience bounds every wait of the stack for a condition (WaitReady, Until). The
// wait ends as soon as the condition holds, so the bound only says when a test
// gives up: CI runs five test binaries at once on 2 cores, two of them with the
// race detector, and a reconcile that takes 3 s alone took over 30 there
// (2026-12-07, the kinds package beside the e2e suites).
const Patience = 2 * time.Minute

// StartPatience bounds the wait for a new stack's Identities to be Ready, which
// includes the operator's start: serving every kind (hundreds of informers and
// controllers) is about 10 s of CPU, and several such stacks starting at once on a
// busy machine took over Patience (make test-under-load, 2026-12-07).
const StartPatience = 5 * time.Minute

// TestKinds are the kinds an operator started here serves when its configuration names
// none (Config.Kinds nil): testenv's, those a package's control plane has by default.
// A test of other kinds names them (TestKindsAnd, in the package's testenv.WithKinds
// too), or EveryKind.
var TestKinds = testenv.TestKinds

// TestKindsAnd is TestKinds and the kinds patterns select (crdinstall patterns:
// group/Kind globs, CRD names, groups).
func TestKindsAnd(patterns ...string) *crdinstall.Pattern { return testenv.KindsAnd(patterns...) }

// EveryKind serves every kind whose CRD is installed (the generated samples' tests).
var EveryKind = testenv.EveryKind

// DefaultConfig is the operator's configuration New uses: no resync during a
// test, fast polling of long-running operations.
func DefaultConfig() operator.Config {
	return operator.Config{Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond, Workers: 2}}
}

// New onboards each namespace (an app registration federated with its
// reserved provisioner ServiceAccount, Contributor on the subscription, an Identity
// "default") under a Tenant allowing resource groups named like the namespace
// followed by "-*", in westeurope, and starts the operator for those
// namespaces. Namespaces must be unique within the test package: they share
// its API server.
func New(t testing.TB, namespaces ...string) *Stack {
	t.Helper()
	return NewWith(t, DefaultConfig(), namespaces...)
}

// NewWith is New with the operator's settings (Cloud and Served are filled in).
func NewWith(t testing.TB, cfg operator.Config, namespaces ...string) *Stack {
	t.Helper()
	return NewLogged(t, cfg, logr.Logger{}, namespaces...)
}

// NewLogged is NewWith with the operator's logger (the manager's, so every
// controller's); the zero Logger is controller-runtime's global one.
func NewLogged(t testing.TB, cfg operator.Config, log logr.Logger, namespaces ...string) *Stack {
	t.Helper()
	return NewOn(t, testenv.Get(t), cfg, log, namespaces...)
}

// NewOn is NewLogged on a control plane of the test's own (testenv.New),
// such as one with only some CRDs installed: it needs the identity and
// tenancy CRDs.
func NewOn(t testing.TB, env *testenv.Env, cfg operator.Config, log logr.Logger, namespaces ...string) *Stack {
	t.Helper()
	return newOn(t, env, cfg, log, nil, namespaces...)
}

// NewTuned is NewWith with the emulator's configuration changed by tune before it
// starts (its audit ring's size, its answers), after AnswersEnv's answers.
func NewTuned(t testing.TB, cfg operator.Config, tune func(*emulator.Config), namespaces ...string) *Stack {
	t.Helper()
	return newOn(t, testenv.Get(t), cfg, logr.Logger{}, tune, namespaces...)
}

func newOn(t testing.TB, env *testenv.Env, cfg operator.Config, log logr.Logger, tune func(*emulator.Config), namespaces ...string) *Stack {
	t.Helper()
	seed := emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: TenantID}},
		Subscriptions:  []emulator.Subscription{{ID: SubscriptionID, TenantID: TenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
	}
	seed.Principals = append(seed.Principals, emulator.Principal{ClientID: PlatformClientID, TenantID: TenantID, ClientSecret: PlatformSecret,
		Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + SubscriptionID}}})
	s := &Stack{Env: env, Client: env.Client, ClientID: map[string]string{}, Principal: map[string]string{}, log: log}
	for i, ns := range namespaces {
		cid := fmt.Sprintf("cccccccc-0000-0000-0000-%012x", 0xa+i) // ...00a, ...00b: a GUID for any count
		s.ClientID[ns] = cid
		seed.Principals = append(seed.Principals, emulator.Principal{
			ClientID: cid, TenantID: TenantID, DisplayName: ns,
			FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL, Subject: "system:serviceaccount:" + ns + ":" + identity.ProvisionerServiceAccount, Audiences: []string{identity.TokenAudience}}},
			Roles:                []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + SubscriptionID}},
		})
	}
	// Azure's hiccups where it has them: a new principal replicates for 2 s.
	key, err := signingKey()
	if err != nil {
		t.Fatal(err)
	}
	emuCfg := emulator.Config{Seed: seed, PrincipalReplication: emulator.Duration(PrincipalReplication), SigningKeyPEM: key}
	if err := AnswersFromEnv(&emuCfg); err != nil {
		t.Fatal(err)
	}
	if tune != nil {
		tune(&emuCfg)
	}
	emu, err := emulator.New(emuCfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	s.Emu = emu
	s.Cloud = identity.Cloud{AuthorityHost: emu.URL() + "/", ARMEndpoint: emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: emu.CAPEM()}

	// Only the operator may set the provisioner account's workload-identity
	// annotations (admission): onboarding would, so the operator's user does.
	asOperator, err := client.New(env.OperatorConfig, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range namespaces {
		s.Principal[ns], _ = emu.PrincipalID(s.ClientID[ns])
		s.Create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: identity.ProvisionerServiceAccount, Namespace: ns, Annotations: map[string]string{
			identity.AnnotationClientID: s.ClientID[ns], identity.AnnotationTenantID: TenantID,
		}}}
		if err := asOperator.Create(t.Context(), sa); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create ServiceAccount %s/%s: %v", ns, sa.Name, err)
		}
		s.Create(t, &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns},
			Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, SubscriptionID: SubscriptionID}})
		s.Create(t, &tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ns},
			Spec: tenancyv1alpha1.TenantSpec{Namespaces: []string{ns}, Subscriptions: []string{SubscriptionID},
				ResourceGroups: []string{ns + "-*"}, Locations: []azurev1alpha1.Location{Location}}})
	}

	s.cfg, s.served = cfg, tenancy.ServeList(namespaces...)
	s.StartManager(t)
	t.Cleanup(s.StopManager)
	// Wait for the Identities, so their status updates do not re-trigger the
	// resources under test and call counts are exact.
	for _, ns := range namespaces {
		testenv.Eventually(t, StartPatience, "Identity of "+ns+" Ready", func() (bool, string) {
			var id identityv1alpha1.Identity
			if err := s.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "default"}, &id); err != nil {
				return false, ""
			}
			c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
			return c != nil && c.Status == metav1.ConditionTrue, ""
		})
	}
	return s
}

// AddIdentity gives namespace ns (one of the stack's) another Azure identity, as a
// platform team grants a namespace a second one for some of its resources: an app
// registration federated with the namespace's provisioner account, Contributor on the
// subscription, and an Identity named name with its client ID, Ready. Resources
// annotated aztenant.io/identity=name act as it. It returns the principal's object ID.
func (s *Stack) AddIdentity(t testing.TB, ns, name string) string {
	t.Helper()
	s.extraIdentities++
	cid := fmt.Sprintf("dddddddd-0000-0000-0000-%012x", s.extraIdentities)
	if err := s.Emu.Seed(emulator.Seed{Principals: []emulator.Principal{{
		ClientID: cid, TenantID: TenantID, DisplayName: ns + "/" + name,
		FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: s.Env.IssuerURL, Subject: "system:serviceaccount:" + ns + ":" + identity.ProvisionerServiceAccount, Audiences: []string{identity.TokenAudience}}},
		Roles:                []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + SubscriptionID}},
	}}}); err != nil {
		t.Fatal(err)
	}
	principal, err := s.Emu.PrincipalID(cid)
	if err != nil {
		t.Fatal(err)
	}
	id := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: cid, SubscriptionID: SubscriptionID}}
	s.Create(t, id)
	Until(t, "Identity "+ns+"/"+name+" Ready", func() bool {
		if err := s.Client.Get(t.Context(), client.ObjectKeyFromObject(id), id); err != nil {
			return false
		}
		c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue
	})
	return principal
}

// signingKey is the token-signing key of the stacks' emulators, one per test binary:
// a 2048-bit RSA key takes about 60 ms of CPU to generate, and each stack starts an
// emulator. Each emulator is still its own issuer (its own URL).
var signingKey = sync.OnceValues(func() (string, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	return jwks.EncodeRSAPrivateKeyPEM(k), nil
})

// StartManager starts the operator (after StopManager: a fresh one, as after
// a crash or a rollout).
func (s *Stack) StartManager(t testing.TB) {
	t.Helper()
	cfg := s.cfg
	cfg.Cloud, cfg.Served = s.Cloud, s.served
	s.Parts, s.stop = StartOperator(t, s.Env, cfg, s.log)
}

// StartOperator runs the operator's manager with cfg against env's API
// server, as the operator's user, with metrics and probes off; the zero
// Logger is controller-runtime's global one. stop stops it and waits until
// it has stopped (calling it again does nothing).
func StartOperator(t testing.TB, env *testenv.Env, cfg operator.Config, log logr.Logger) (parts *operator.Parts, stop func()) {
	t.Helper()
	if cfg.Kinds == nil {
		cfg.Kinds = TestKinds
	}
	scheme, err := operator.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	opts := ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}, // one manager per test
		Cache:      operator.CacheOptions(cfg.Served),
	}
	if log.GetSink() != nil {
		opts.Logger = log
	}
	mgr, err := ctrl.NewManager(env.OperatorConfig, opts)
	if err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	parts, err = operator.Setup(mctx, mgr, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	var once sync.Once
	return parts, func() { once.Do(func() { cancel(); <-done }) }
}

// StopManager stops the operator and waits until it has stopped.
func (s *Stack) StopManager() {
	if s.stop != nil {
		s.stop()
	}
}

// Create creates obj; one that already exists is fine.
func (s *Stack) Create(t testing.TB, obj client.Object) {
	t.Helper()
	if err := s.Client.Create(t.Context(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

// WaitReady waits until obj's Ready condition has the status and reason for
// its current generation, and leaves obj as last read.
func (s *Stack) WaitReady(t testing.TB, obj azurev1alpha1.Resource, status metav1.ConditionStatus, reason string) {
	t.Helper()
	s.mustServe(t, obj)
	testenv.Eventually(t, Patience, fmt.Sprintf("%s Ready %s/%s", obj.GetName(), status, reason), func() (bool, string) {
		if err := s.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(obj.AzureStatus().Conditions, "Ready")
		return c != nil && c.Status == status && c.Reason == reason && c.ObservedGeneration == obj.GetGeneration(), fmt.Sprintf("%+v", c)
	})
}

// mustServe fails the test at once when obj's kind is one the stack's operator
// does not serve (TestKinds), rather than after a wait for a reconcile that
// never comes.
func (s *Stack) mustServe(t testing.TB, obj client.Object) {
	t.Helper()
	kinds := s.cfg.Kinds
	if kinds == nil {
		kinds = TestKinds
	}
	gvk, err := s.Client.GroupVersionKindFor(obj)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatal(err)
	}
	if !kinds.Selects(gvk.GroupKind(), m.Resource.Resource+"."+gvk.Group) {
		t.Fatalf("%s is not served by this stack's operator (kinds %q): name it in the test's Config.Kinds", gvk.GroupKind(), kinds)
	}
}

// ReadyMessage is the message of obj's Ready condition, "" without one.
func ReadyMessage(obj azurev1alpha1.Resource) string {
	if c := meta.FindStatusCondition(obj.AzureStatus().Conditions, "Ready"); c != nil {
		return c.Message
	}
	return ""
}

// ARMCalls returns the ARM calls on paths ending with suffix
// (case-insensitively), in order.
func (s *Stack) ARMCalls(suffix string) []emulator.AuditEntry {
	var out []emulator.AuditEntry
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Service: "arm"}) {
		if strings.HasSuffix(strings.ToLower(e.Path), strings.ToLower(suffix)) {
			out = append(out, e)
		}
	}
	return out
}

// Reads counts the reads of the resource id: its GETs and the lists of its
// collection (drift checks compare a steady object with a listing).
func (s *Stack) Reads(id string) int {
	id = strings.ToLower(id)
	coll := id[:max(strings.LastIndex(id, "/"), 0)]
	n := 0
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Service: "arm", Method: "GET"}) {
		if p := strings.ToLower(e.Path); p == id || p == coll {
			n++
		}
	}
	return n
}

// ReadAgain runs cause, when given (a Touch), and waits until the resource id has been
// read n more times than before it (its syncs, or the GETs of its reconciles): a write
// those reconciles made is in the audit by then. Tests that check that nothing more is
// written wait on it, not on a sleep a busy machine may fill with no sync at all.
func (s *Stack) ReadAgain(t testing.TB, id string, n int, cause func()) {
	t.Helper()
	want := s.Reads(id) + n
	if cause != nil {
		cause()
	}
	Until(t, fmt.Sprintf("%s read %d more times", id, n), func() bool { return s.Reads(id) >= want })
}

// Methods lists the calls' methods, such as "GET PUT".
func Methods(es []emulator.AuditEntry) string {
	var m []string
	for _, e := range es {
		m = append(m, e.Method)
	}
	return strings.Join(m, " ")
}

// Until polls cond for up to a minute: only a failure waits that long, and
// a busy machine (a package's tests run beside others) may need it.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testenv.Eventually(t, Patience, what, func() (bool, string) { return cond(), "" })
}

// Gone reports whether obj no longer exists in the API server.
func (s *Stack) Gone(obj client.Object) bool {
	err := s.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
	return client.IgnoreNotFound(err) == nil && err != nil
}

// AzureBody reads a resource from the emulator's state.
func (s *Stack) AzureBody(t testing.TB, id string) map[string]any {
	t.Helper()
	body, err := s.Emu.ResourceBody(id)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// SentBody reads what the operator last sent Azure for a resource (the emulator's
// Emulator.SentBody): with Azure-like answers, not what AzureBody answers.
func (s *Stack) SentBody(t testing.TB, id string) map[string]any {
	t.Helper()
	body, err := s.Emu.SentBody(id)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// AnswersEnv names the environment variable that sets how every stack's emulator answers
// the writes of generated kinds, so any package's tests can be measured against other
// answers without a change. By default (unset) they are answered from Azure's documented
// examples (Config.AnswerFromExamples), as Azure would answer them; the value is a
// comma-separated list of "echo" (the request echoed back instead, as before issue 27),
// "examples" (the default, said again) and "perturb=<seed>" (Config.PerturbWrites), such
// as AZTENANT_EMULATOR_ANSWERS=perturb=7 or AZTENANT_EMULATOR_ANSWERS=echo.
const AnswersEnv = "AZTENANT_EMULATOR_ANSWERS"

// AnswersFromEnv sets cfg's answers as AnswersEnv says: from Azure's examples unless it
// says echo.
func AnswersFromEnv(cfg *emulator.Config) error {
	v := os.Getenv(AnswersEnv)
	cfg.AnswerFromExamples = true
	for _, part := range strings.Split(v, ",") {
		switch k, val, _ := strings.Cut(strings.TrimSpace(part), "="); k {
		case "", "examples":
		case "echo":
			cfg.AnswerFromExamples = false
		case "perturb":
			seed, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				return fmt.Errorf("%s=%q: perturb wants a seed, as perturb=7", AnswersEnv, v)
			}
			cfg.PerturbWrites = &emulator.PerturbWrites{Seed: seed}
		default:
			return fmt.Errorf("%s=%q: %q is none of echo, examples and perturb=<seed>", AnswersEnv, v, k)
		}
	}
	if !cfg.AnswerFromExamples && strings.Contains(v, "examples") {
		return fmt.Errorf("%s=%q: echo and examples both", AnswersEnv, v)
	}
	return nil
}

// SetAnswerFromExamples makes the emulator answer writes of generated kinds from Azure's
// documented examples (emulator.Config.AnswerFromExamples) until the test ends.
func (s *Stack) SetAnswerFromExamples(t testing.TB) {
	t.Helper()
	was := s.Emu.AnswerFromExamples()
	s.Emu.SetAnswerFromExamples(true)
	t.Cleanup(func() { s.Emu.SetAnswerFromExamples(was) })
}

// SetPerturbWrites perturbs every write of a generated kind as p says
// (emulator.Config.PerturbWrites) until the test ends.
func (s *Stack) SetPerturbWrites(t testing.TB, p emulator.PerturbWrites) {
	t.Helper()
	was := s.Emu.PerturbWrites()
	if err := s.Emu.SetPerturbWrites(&p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Emu.SetPerturbWrites(was) })
}

// SetAnswers makes the emulator answer writes the way Azure does through ts
// (answer transforms, emulator/answers.go) until the test ends.
func (s *Stack) SetAnswers(t testing.TB, ts ...emulator.AnswerTransform) {
	t.Helper()
	if err := s.Emu.SetAnswerTransforms(ts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Emu.SetAnswerTransforms() })
}

// Touch changes an annotation, which makes the object reconcile again without
// a spec change.
func (s *Stack) Touch(t testing.TB, obj client.Object, value string) {
	t.Helper()
	if err := s.TouchErr(t.Context(), obj, value); err != nil {
		t.Fatal(err)
	}
}

// TouchErr is Touch returning the error (NotFound for an object gone). It
// is a merge patch of the annotation alone: the operator writing the
// object's status or finalizers meanwhile does not make it conflict.
func (s *Stack) TouchErr(ctx context.Context, obj client.Object, value string) error {
	if err := s.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return err
	}
	base := obj.DeepCopyObject().(client.Object)
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a["touch"] = value
	obj.SetAnnotations(a)
	return s.Client.Patch(ctx, obj, client.MergeFrom(base))
}

// Settled waits for n calls on the path, then a little longer so that a
// write after them would be seen, and returns their methods.
func (s *Stack) Settled(t testing.TB, suffix string, n int) string {
	t.Helper()
	Until(t, suffix+" has "+string(rune('0'+n))+" calls", func() bool { return len(s.ARMCalls(suffix)) >= n })
	time.Sleep(300 * time.Millisecond)
	return Methods(s.ARMCalls(suffix))
}

// PlatformCredential is the platform principal's credential, for creating
// things in Azure outside aztenant.
func (s *Stack) PlatformCredential(t testing.TB) azcore.TokenCredential {
	t.Helper()
	cred, err := azidentity.NewClientSecretCredential(TenantID, PlatformClientID, PlatformSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: s.Emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// RGID is the ARM ID of a resource group of the subscription.
func RGID(name string) string { return "/subscriptions/" + SubscriptionID + "/resourceGroups/" + name }

// ResourceGroup is a ResourceGroup object in the Tenant's location.
func ResourceGroup(ns, name string, annotations, tags map[string]string) *resourcesv1alpha1.ResourceGroup {
	return &resourcesv1alpha1.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec:       resourcesv1alpha1.ResourceGroupSpec{Location: Location, Tags: tags},
	}
}

// PlatformPut writes a resource in Azure with the platform's credential, as a
// platform team's own tooling would (outside aztenant), and fails t unless ARM
// accepts it. The write may still be running in Azure when it returns.
func (s *Stack) PlatformPut(t testing.TB, id, apiVersion, body string) {
	t.Helper()
	cl, err := arm.NewClient("stacktest", "v0.1.0", s.PlatformCredential(t), &arm.ClientOptions{ClientOptions: s.Emu.ClientOptions(), DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	req, err := runtime.NewRequest(t.Context(), http.MethodPut, runtime.JoinPaths(cl.Endpoint(), id))
	if err != nil {
		t.Fatal(err)
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	if err := req.SetBody(streaming.NopCloser(strings.NewReader(body)), "application/json"); err != nil {
		t.Fatal(err)
	}
	resp, err := cl.Pipeline().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("PUT %s: %s", id, resp.Status)
	}
}
