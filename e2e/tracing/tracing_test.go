package tracing_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	tracev1 "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// The fixture: the platform's app registration, federated with the
// operator namespace's ServiceAccount, onboards Tenant trc, whose namespace
// trc-a gets its managed identity and resource group trc-app.
const (
	ops, ns, tenantName = "trc-ops", "trc-a", "trc"
	platformClientID    = "aaaaaaaa-3333-4333-8333-000000000001"
	sub                 = stacktest.SubscriptionID
)

// jwtShaped matches a JSON Web Token: a base64url JSON header and payload
// ("eyJ" is how `{"` encodes) and a signature.
var jwtShaped = regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)

// One operator's traces, as an OTLP collector receives them, tell what it
// did: onboarding (a span per reconcile, a child per step, the steps' ARM
// calls under them and the platform identity's exchange under the step that
// needed it), the Identity controller's exchange, a storage account created
// by a long-running operation (the polls linked to the reconcile that
// started it), a role assignment refused by policy and an Identity Entra ID
// rejects (error status and reason on the reconcile and on the exchange),
// and no span holds a token, an assertion or a secret.
func TestTracesTellTheStory(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	c := env.Client

	rcv := startReceiver(t)
	tp, err := operator.Tracing(ctx, rcv.addr, true)
	must(t, err)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: stacktest.TenantID}},
		Subscriptions:  []emulator.Subscription{{ID: sub, TenantID: stacktest.TenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
		Principals: []emulator.Principal{{ClientID: platformClientID, TenantID: stacktest.TenantID, DisplayName: "platform",
			Roles: []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + sub}, {Role: "User Access Administrator", Scope: "/subscriptions/" + sub}},
			FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL,
				Subject: onboarding.Subject(ops, "platform"), Audiences: []string{identity.TokenAudience}}}}},
	}})
	must(t, err)
	emu.KeepIssued(true)
	must(t, emu.Start(context.Background()))
	t.Cleanup(func() { emu.Close() })
	platformOID, err := emu.PrincipalID(platformClientID)
	must(t, err)

	for _, n := range []string{ops, ns} {
		must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}))
	}
	must(t, c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: ops}}))
	must(t, c.Create(ctx, &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: ops},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "platform", ClientID: platformClientID, TenantID: stacktest.TenantID, SubscriptionID: sub}}))
	cloud := identity.Cloud{AuthorityHost: emu.URL() + "/", ARMEndpoint: emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: emu.CAPEM()}
	_, stop := stacktest.StartOperator(t, env, operator.Config{Cloud: cloud, Served: tenancy.ServeTenants(),
		Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond, Workers: 2}, PlatformIdentity: types.NamespacedName{Namespace: ops, Name: "platform"}}, logr.Logger{})
	t.Cleanup(stop)
	t.Cleanup(func() { dropFinalizers(env, tenantName) })

	// Onboarding: the Tenant, then the namespace's Identity it creates.
	must(t, c.Create(ctx, &tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenantName}, Spec: tenancyv1alpha1.TenantSpec{
		Namespaces: []string{ns}, Subscriptions: []string{sub}, ResourceGroups: []string{tenantName + "-*"},
		Locations:  []azurev1alpha1.Location{stacktest.Location},
		Onboarding: &tenancyv1alpha1.TenantOnboarding{ResourceGroups: []string{"trc-app"}, Location: stacktest.Location},
	}}))
	testenv.Eventually(t, wait, "Tenant onboarded", func() (bool, string) {
		var tn tenancyv1alpha1.Tenant
		must(t, c.Get(ctx, client.ObjectKey{Name: tenantName}, &tn))
		cond := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded)
		return cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == tn.Generation, condString(cond)
	})
	var team identityv1alpha1.Identity
	identityReady(t, c, client.ObjectKey{Namespace: ns, Name: "default"}, &team, metav1.ConditionTrue, identity.ReasonExchanged)

	// A storage account whose create stays in progress for a second: the
	// reconcile that sends the PUT requeues, and later ones poll.
	emu.SetLRO("Microsoft.Storage/storageAccounts", emulator.LROConfig{Duration: emulator.Duration(time.Second)})
	appRG := onboarding.ResourceGroupID(sub, "trc-app")
	account := &storagev1alpha1.StorageAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "trcst"},
		Spec: storagev1alpha1.StorageAccountSpec{Owner: &azurev1alpha1.OwnerReference{ARMID: appRG}, Location: stacktest.Location,
			Kind: "StorageV2", Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"}}}
	must(t, c.Create(ctx, account))
	resourceReady(t, c, account, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	// A resource group the Tenant allows, which the namespace's identity may
	// not create: onboarding creates it with the platform identity.
	devRG := stacktest.ResourceGroup(ns, "trc-dev", nil, nil)
	must(t, c.Create(ctx, devRG))
	resourceReady(t, c, devRG, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	// Owner on the storage account: the built-in identity rules refuse it.
	owner := &authorizationv1alpha1.RoleAssignment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "trc-owner"},
		Spec: authorizationv1alpha1.RoleAssignmentSpec{
			Owner:                   &authorizationv1alpha1.RoleAssignmentOwner{Name: account.Name, Group: "storage.aztenant.io", Kind: "StorageAccount"},
			RoleDefinitionReference: authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Owner"},
			PrincipalID:             team.Status.PrincipalID}}
	must(t, c.Create(ctx, owner))
	resourceReady(t, c, owner, metav1.ConditionFalse, policy.ReasonPolicyDenied)

	// An Identity naming the platform's client ID: no federated credential
	// of it trusts the namespace's account, so Entra refuses the exchange,
	// for the Identity and for a resource using it.
	stolenKey := client.ObjectKey{Namespace: ns, Name: "stolen"}
	must(t, c.Create(ctx, &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: stolenKey.Name},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: platformClientID, SubscriptionID: sub}}))
	var stolen identityv1alpha1.Identity
	identityReady(t, c, stolenKey, &stolen, metav1.ConditionFalse, identity.ReasonFederationRejected)
	uai := &managedidentityv1alpha1.UserAssignedIdentity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "trc-uai",
		Annotations: map[string]string{identity.AnnotationIdentity: stolenKey.Name}},
		Spec: managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: &azurev1alpha1.OwnerReference{ARMID: appRG}, Location: stacktest.Location}}
	must(t, c.Create(ctx, uai))
	resourceReady(t, c, uai, metav1.ConditionFalse, identity.ReasonFederationRejected)

	// Every reconcile has ended once the operator has stopped; Shutdown
	// exports what is left.
	stop()
	must(t, tp.Shutdown(ctx))
	requests, f := rcv.received()
	t.Logf("received %d spans in %d requests: %s", len(f.all), len(requests), names(f.all))

	t.Run("tree", func(t *testing.T) {
		for _, s := range f.all {
			if len(s.GetParentSpanId()) > 0 && f.parent(s) == nil {
				t.Errorf("the parent of %s was not received", describe(s))
			}
			p := f.parent(s)
			switch {
			case strings.HasPrefix(s.GetName(), "ARM "):
				if !f.under(s, "Reconcile ", "Onboarding ", "Offboarding ") {
					t.Errorf("%s is under no reconcile or onboarding step", describe(s))
				}
			case s.GetName() == identity.SpanExchange:
				if !f.under(s, "Reconcile ") {
					t.Errorf("%s is under no reconcile", describe(s))
				}
				if attr(s, identity.AttrClientID) == "" || attr(s, identity.AttrTenantID) != stacktest.TenantID {
					t.Errorf("%s does not name its client and tenant ID", describe(s))
				}
			case s.GetName() == identity.SpanTokenRequest:
				if p == nil || p.GetName() != identity.SpanExchange {
					t.Errorf("%s is not a child of an exchange: parent %s", describe(s), describe(p))
				}
			case s.GetName() == "Resolve identity":
				if p == nil || !strings.HasPrefix(p.GetName(), "Reconcile ") {
					t.Errorf("%s is not a child of a reconcile: parent %s", describe(s), describe(p))
				}
			}
		}
	})

	t.Run("onboarding", func(t *testing.T) {
		steps := []string{tenancyv1alpha1.StepResourceGroups, tenancyv1alpha1.StepManagedIdentity, tenancyv1alpha1.StepFederatedCredential,
			tenancyv1alpha1.StepRoleAssignments, tenancyv1alpha1.StepServiceAccount, tenancyv1alpha1.StepIdentity}
		azureSteps := map[string]bool{tenancyv1alpha1.StepResourceGroups: true, tenancyv1alpha1.StepManagedIdentity: true,
			tenancyv1alpha1.StepFederatedCredential: true, tenancyv1alpha1.StepRoleAssignments: true}
		var full *tracev1.Span
		for _, r := range f.named(onboarding.SpanReconcile, "aztenant.tenant", tenantName, identity.AttrReason, onboarding.ReasonOnboarded) {
			if !isOK(r) {
				t.Errorf("an Onboarded reconcile is not OK: %s", describe(r))
			}
			if len(f.childrenNamed(r, onboarding.SpanStepPrefix+tenancyv1alpha1.StepIdentity)) > 0 && full == nil {
				full = r
			}
		}
		if full == nil {
			t.Fatalf("no onboarding reconcile with reason Onboarded ran its steps; onboarding spans: %s", names(f.named(onboarding.SpanReconcile)))
		}
		for _, step := range steps {
			kv := []string{onboarding.AttrStep, step}
			if step != tenancyv1alpha1.StepResourceGroups {
				kv = append(kv, identity.AttrNamespace, ns)
			}
			got := f.childrenNamed(full, onboarding.SpanStepPrefix+step, kv...)
			if len(got) != 1 {
				t.Errorf("step %s: %d spans under the reconcile, want 1", step, len(got))
				continue
			}
			if !isOK(got[0]) || attr(got[0], "aztenant.onboarding.state") != tenancyv1alpha1.StepReady {
				t.Errorf("step %s: %s", step, describe(got[0]))
			}
			if arm := len(f.childrenNamed(got[0], "ARM GET")) + len(f.childrenNamed(got[0], "ARM PUT")); azureSteps[step] && arm == 0 {
				t.Errorf("step %s has no ARM call as a child: %s", step, names(f.children[id(got[0].GetSpanId())]))
			}
		}
		// The group a developer asked for: its step, with the PUT.
		var requested bool
		for _, st := range f.named(onboarding.SpanStepPrefix+tenancyv1alpha1.StepRequestedResourceGroups, identity.AttrNamespace, ns) {
			for _, put := range f.childrenNamed(st, "ARM PUT") {
				if strings.HasSuffix(strings.ToLower(attr(put, "url.path")), "/resourcegroups/trc-dev") && isOK(st) && f.under(st, onboarding.SpanReconcile) {
					requested = true
				}
			}
		}
		if !requested {
			t.Errorf("no %s step created trc-dev: %v", tenancyv1alpha1.StepRequestedResourceGroups,
				describeAll(f.named(onboarding.SpanStepPrefix+tenancyv1alpha1.StepRequestedResourceGroups)))
		}
	})

	t.Run("identity", func(t *testing.T) {
		var exchanged *tracev1.Span
		for _, r := range f.named(identity.SpanReconcile, identity.AttrNamespace, ns, identity.AttrName, "default", identity.AttrReason, identity.ReasonExchanged) {
			if !isOK(r) || attr(r, identity.AttrClientID) != team.Status.ClientID || attr(r, identity.AttrPrincipalID) != team.Status.PrincipalID {
				t.Errorf("a Ready Identity's reconcile: %s", describe(r))
			}
			if xs := f.childrenNamed(r, identity.SpanExchange, identity.AttrClientID, team.Status.ClientID); len(xs) > 0 && exchanged == nil {
				exchanged = xs[0]
			}
		}
		if exchanged == nil {
			t.Fatalf("no reconcile of Identity %s/default has the exchange as a child; Identity spans: %s", ns, names(f.named(identity.SpanReconcile)))
		}
		if !isOK(exchanged) || attr(exchanged, identity.AttrPrincipalID) != team.Status.PrincipalID || attr(exchanged, identity.AttrServiceAccount) != identity.ProvisionerServiceAccount {
			t.Errorf("the namespace's exchange: %s", describe(exchanged))
		}
		// The platform identity exchanged for whichever needed its token
		// first: the Identity controller's check of it, or an onboarding
		// step (its credential serves both).
		platform := f.named(identity.SpanExchange, identity.AttrClientID, platformClientID, identity.AttrNamespace, ops)
		if len(platform) == 0 {
			t.Fatal("no exchange of the platform identity")
		}
		for _, x := range platform {
			if !isOK(x) || attr(x, identity.AttrPrincipalID) != platformOID || !(f.under(x, identity.SpanReconcile) || f.under(x, onboarding.SpanStepPrefix)) {
				t.Errorf("the platform's exchange: %s, under %s", describe(x), describe(f.parent(x)))
			}
		}
		// The first exchange of each ServiceAccount asked the API server for
		// its token.
		for _, x := range []*tracev1.Span{platform[0], f.named(identity.SpanExchange, identity.AttrClientID, team.Status.ClientID)[0]} {
			sa := attr(x, identity.AttrNamespace) + "/" + attr(x, identity.AttrServiceAccount)
			if len(f.childrenNamed(x, identity.SpanTokenRequest)) != 1 {
				t.Errorf("the first exchange of %s has no TokenRequest as a child: %s", sa, names(f.children[id(x.GetSpanId())]))
			}
		}
		for _, r := range f.named(identity.SpanTokenRequest) {
			if !isOK(r) || attr(r, "aztenant.token.audience") != identity.TokenAudience {
				t.Errorf("a TokenRequest: %s", describe(r))
			}
		}
	})

	t.Run("long-running operation", func(t *testing.T) {
		reconciles := f.named("Reconcile StorageAccount", identity.AttrNamespace, ns, identity.AttrName, account.Name)
		var start *tracev1.Span
		for _, r := range reconciles {
			if attr(r, "aztenant.operation.started") == "true" {
				if start != nil {
					t.Errorf("two reconciles started an operation: %s and %s", describe(start), describe(r))
				}
				start = r
			}
		}
		if start == nil {
			t.Fatalf("no reconcile started the create; StorageAccount reconciles: %v", describeAll(reconciles))
		}
		if !isOK(start) || attr(start, identity.AttrReason) != reconcilers.ReasonReconciling || attr(start, "aztenant.arm_id") != account.Status.ID {
			t.Errorf("the reconcile that started the create: %s", describe(start))
		}
		if len(f.childrenNamed(start, "ARM PUT", "http.response.status_code", "202")) != 1 {
			t.Errorf("the reconcile that started the create has no ARM PUT answered 202: %s", names(f.children[id(start.GetSpanId())]))
		}
		if !hasEvent(start, reconcilers.DecisionCreate) {
			t.Errorf("the reconcile that started the create has no %q event", reconcilers.DecisionCreate)
		}
		var polls, linked int
		var last *tracev1.Span
		for _, r := range reconciles {
			if attr(r, "aztenant.operation.polling") != "true" {
				continue
			}
			polls++
			last = r
			for _, l := range r.GetLinks() {
				if bytes.Equal(l.GetSpanId(), start.GetSpanId()) && bytes.Equal(l.GetTraceId(), start.GetTraceId()) {
					linked++
				}
			}
			if bytes.Equal(r.GetTraceId(), start.GetTraceId()) {
				t.Errorf("a poll is in the trace of the reconcile that started the operation: %s", describe(r))
			}
		}
		if polls == 0 || linked != polls {
			t.Errorf("%d reconciles polled the operation, %d link to the one that started it", polls, linked)
		}
		if last == nil || attr(last, identity.AttrReason) != reconcilers.ReasonSucceeded || !isOK(last) {
			t.Errorf("the last poll: %s", describe(last))
		}
	})

	t.Run("policy denied", func(t *testing.T) {
		rs := f.named("Reconcile RoleAssignment", identity.AttrNamespace, ns, identity.AttrName, owner.Name, identity.AttrReason, policy.ReasonPolicyDenied)
		if len(rs) == 0 {
			t.Fatalf("no RoleAssignment reconcile with reason PolicyDenied: %v", describeAll(f.named("Reconcile RoleAssignment")))
		}
		for _, r := range rs {
			if !isError(r) || !strings.Contains(r.GetStatus().GetMessage(), "Owner") || attr(r, "aztenant.reason.class") != string(reconcilers.ClassTerminal) {
				t.Errorf("a denied reconcile: %s", describe(r))
			}
			if puts := f.childrenNamed(r, "ARM PUT"); len(puts) > 0 {
				t.Errorf("a denied reconcile wrote to Azure: %s", describe(puts[0]))
			}
		}
	})

	t.Run("federation rejected", func(t *testing.T) {
		rejected := func(where string, r *tracev1.Span) {
			t.Helper()
			if !isError(r) || !strings.Contains(r.GetStatus().GetMessage(), "AADSTS70021") {
				t.Errorf("%s: %s", where, describe(r))
			}
			xs := f.childrenNamed(r, identity.SpanExchange, identity.AttrClientID, platformClientID, identity.AttrNamespace, ns)
			if len(xs) == 0 {
				t.Errorf("%s has no exchange as a child: %s", where, names(f.children[id(r.GetSpanId())]))
				return
			}
			for _, x := range xs {
				if !isError(x) || attr(x, identity.AttrReason) != identity.ReasonFederationRejected || !strings.Contains(x.GetStatus().GetMessage(), "AADSTS70021") ||
					attr(x, identity.AttrPrincipalID) != "" {
					t.Errorf("%s: the refused exchange: %s", where, describe(x))
				}
			}
		}
		ids := f.named(identity.SpanReconcile, identity.AttrNamespace, ns, identity.AttrName, stolenKey.Name, identity.AttrReason, identity.ReasonFederationRejected)
		if len(ids) == 0 {
			t.Fatalf("no reconcile of Identity %s with reason FederationRejected: %v", stolenKey, describeAll(f.named(identity.SpanReconcile)))
		}
		rejected("the Identity's reconcile", ids[0])
		rs := f.named("Reconcile UserAssignedIdentity", identity.AttrNamespace, ns, identity.AttrName, uai.Name, identity.AttrReason, identity.ReasonFederationRejected)
		if len(rs) == 0 {
			t.Fatalf("no UserAssignedIdentity reconcile with reason FederationRejected: %v", describeAll(f.named("Reconcile UserAssignedIdentity")))
		}
		rejected("the resource's reconcile", rs[0])
		if attr(rs[0], "aztenant.reason.class") != string(reconcilers.ClassTerminal) {
			t.Errorf("FederationRejected is not terminal on the span: %s", describe(rs[0]))
		}
	})

	t.Run("no secret", func(t *testing.T) {
		issued := emu.Issued()
		var tokens int
		for _, v := range issued {
			if jwtShaped.MatchString(v) {
				tokens++
			}
		}
		// The platform's and the namespace's assertions and access tokens,
		// and the assertion Entra refused: the scan below would see them.
		if tokens < 5 {
			t.Fatalf("the emulator saw %d JWTs (%d values), want at least 5", tokens, len(issued))
		}
		for i, req := range requests {
			raw, err := proto.Marshal(req)
			must(t, err)
			for _, v := range issued {
				if bytes.Contains(raw, []byte(v)) {
					t.Errorf("export %d holds a value the emulator issued or was presented (%d bytes)", i, len(v))
				}
			}
			if m := jwtShaped.Find(raw); m != nil {
				t.Errorf("export %d holds something shaped like a JWT (%d bytes)", i, len(m))
			}
		}
	})
}

func describeAll(spans []*tracev1.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, describe(s))
	}
	return out
}

func hasEvent(s *tracev1.Span, name string) bool {
	for _, e := range s.GetEvents() {
		if e.GetName() == name {
			return true
		}
	}
	return false
}

// wait is how long a test waits for the operator.
const wait = 60 * time.Second

// resourceReady waits until obj's Ready condition has the status and reason
// for its current generation, and leaves obj as last read.
func resourceReady(t testing.TB, c client.Client, obj azurev1alpha1.Resource, status metav1.ConditionStatus, reason string) {
	t.Helper()
	testenv.Eventually(t, wait, fmt.Sprintf("%s Ready %s %s", obj.GetName(), status, reason), func() (bool, string) {
		must(t, c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
		cond := meta.FindStatusCondition(obj.AzureStatus().Conditions, reconcilers.ConditionReady)
		return cond != nil && cond.Status == status && cond.Reason == reason && cond.ObservedGeneration == obj.GetGeneration(), condString(cond)
	})
}

// identityReady waits until the Identity's Ready condition has the status
// and reason, and leaves it in id.
func identityReady(t testing.TB, c client.Client, key client.ObjectKey, id *identityv1alpha1.Identity, status metav1.ConditionStatus, reason string) {
	t.Helper()
	testenv.Eventually(t, wait, fmt.Sprintf("Identity %s Ready %s %s", key, status, reason), func() (bool, string) {
		if err := c.Get(context.Background(), key, id); err != nil {
			return false, err.Error()
		}
		cond := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		return cond != nil && cond.Status == status && cond.Reason == reason, condString(cond)
	})
}

// dropFinalizers strips the Tenants of onboarding's finalizer, so a failed
// test leaves nothing behind in the package's API server.
func dropFinalizers(env *testenv.Env, tenants ...string) {
	for _, name := range tenants {
		var tn tenancyv1alpha1.Tenant
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, &tn); err == nil {
			base := tn.DeepCopy()
			tn.Finalizers = nil
			_ = env.Client.Patch(context.Background(), &tn, client.MergeFrom(base))
		}
	}
}

func condString(c *metav1.Condition) string {
	if c == nil {
		return "<none>"
	}
	return string(c.Status) + " " + c.Reason + ": " + c.Message
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
