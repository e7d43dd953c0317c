package onboarding_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

func TestMain(m *testing.M) {
	testenv.Main(m)
}

const (
	tenantID         = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	subID            = "00000000-0000-0000-0000-0000000000ab"
	platformClientID = "aaaaaaaa-1111-4111-8111-000000000001"
	fixtureClientID  = "ffffffff-1111-4111-8111-000000000001"
	fixtureSecret    = "fixture-s3cret"
	location         = "westeurope"
)

// world is one test's Azure (an emulator trusting the API server's issuer)
// and one operator, wired as cmd/operator wires it, with a platform identity
// in namespace ops: an app registration federated with ops/platform.
type world struct {
	t       testing.TB
	env     *testenv.Env
	c       client.Client
	emu     *emulator.Emulator
	opts    azcore.ClientOptions
	ops     string
	fixture azcore.TokenCredential // Owner, for setting up and inspecting Azure
}

// newWorld starts the emulator with the platform principal holding
// platformRoles on the subscription. The platform Identity is created unless
// createPlatform is false.
func newWorld(t testing.TB, ops string, platformRoles []string, createPlatform bool) *world {
	t.Helper()
	env := testenv.Get(t)
	var roles []emulator.RoleAssignment
	for _, r := range platformRoles {
		roles = append(roles, emulator.RoleAssignment{Role: r, Scope: "/subscriptions/" + subID})
	}
	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: tenantID}},
		Subscriptions:  []emulator.Subscription{{ID: subID, TenantID: tenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
		Principals: []emulator.Principal{
			{ClientID: platformClientID, TenantID: tenantID, DisplayName: "platform", Roles: roles,
				FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL,
					Subject: onboarding.Subject(ops, "platform"), Audiences: []string{identity.TokenAudience}}}},
			{ClientID: fixtureClientID, TenantID: tenantID, DisplayName: "test fixture", ClientSecret: fixtureSecret,
				Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + subID}}},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	opts := emu.ClientOptions()
	fixture, err := azidentity.NewClientSecretCredential(tenantID, fixtureClientID, fixtureSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, env: env, c: env.Client, emu: emu, opts: opts, ops: ops, fixture: fixture}
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ops}})
	if createPlatform {
		w.createPlatformIdentity()
	}
	return w
}

func (w *world) createPlatformIdentity() {
	w.create(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: w.ops}})
	w.create(&identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: w.ops},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "platform", ClientID: platformClientID, TenantID: tenantID, SubscriptionID: subID}})
}

// startOperator runs the operator until the test ends; the Tenants named
// are then stripped of finalizers and deleted so the next test's operator
// does not find them.
func (w *world) startOperator(tenants ...string) {
	t := w.t
	t.Helper()
	t.Cleanup(func() {
		ctx := context.Background()
		for _, name := range tenants {
			var tn tenancyv1alpha1.Tenant
			if err := w.c.Get(ctx, client.ObjectKey{Name: name}, &tn); err != nil {
				continue
			}
			base := tn.DeepCopy()
			tn.Finalizers = nil
			_ = w.c.Patch(ctx, &tn, client.MergeFrom(base))
			_ = w.c.Delete(ctx, &tn)
		}
	})
	cloud := identity.Cloud{AuthorityHost: w.emu.URL() + "/", ARMEndpoint: w.emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: w.emu.CAPEM()}
	// No OIDCIssuerURL: the operator reads the issuer from the API server.
	_, stop := stacktest.StartOperator(t, w.env, operator.Config{Cloud: cloud, Served: tenancy.ServeTenants(),
		Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond}, PlatformIdentity: types.NamespacedName{Namespace: w.ops, Name: "platform"}},
		logr.Logger{})
	t.Cleanup(stop)
}

func (w *world) create(objs ...client.Object) {
	w.t.Helper()
	for _, o := range objs {
		if err := w.c.Create(context.Background(), o); err != nil {
			w.t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

func (w *world) armOptions() *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: w.opts, DisableRPRegistration: true}
}

// createRG and createUAMI set up Azure out of band, as the fixture principal.
func (w *world) createRG(name string) {
	w.t.Helper()
	rgs, err := armresources.NewResourceGroupsClient(subID, w.fixture, w.armOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := rgs.CreateOrUpdate(w.t.Context(), name, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) createUAMI(cred azcore.TokenCredential, rg, name string) error {
	ids, err := armmsi.NewUserAssignedIdentitiesClient(subID, cred, w.armOptions())
	if err != nil {
		return err
	}
	_, err = ids.CreateOrUpdate(w.t.Context(), rg, name, armmsi.Identity{Location: to.Ptr(location)}, nil)
	return err
}

// exists reports whether an ARM resource exists, read by the emulator's
// Control API (no RBAC, no audit entry).
func (w *world) exists(id string) bool {
	_, err := w.emu.Resource(id)
	return err == nil
}

// roleAssignmentsOf lists the scopes and role definitions assigned to a principal anywhere in the subscription.
func (w *world) roleAssignmentsOf(principalID string) []string {
	w.t.Helper()
	ras, err := armauthorization.NewRoleAssignmentsClient(subID, w.fixture, w.armOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	pager := ras.NewListForSubscriptionPager(&armauthorization.RoleAssignmentsClientListForSubscriptionOptions{Filter: to.Ptr("principalId eq '" + principalID + "'")})
	for pager.More() {
		page, err := pager.NextPage(w.t.Context())
		if err != nil {
			w.t.Fatal(err)
		}
		for _, ra := range page.Value {
			out = append(out, strings.ToLower(*ra.Properties.Scope+" "+*ra.Properties.RoleDefinitionID))
		}
	}
	slices.Sort(out)
	return out
}

// lastSeq is the audit position now.
func (w *world) lastSeq() uint64 {
	if e := w.emu.Audit(emulator.AuditFilter{Limit: 1}); len(e) > 0 {
		return e[0].Seq
	}
	return 0
}

func (w *world) tenant(name string) *tenancyv1alpha1.Tenant {
	w.t.Helper()
	var tn tenancyv1alpha1.Tenant
	if err := w.c.Get(context.Background(), client.ObjectKey{Name: name}, &tn); err != nil {
		w.t.Fatal(err)
	}
	return &tn
}

// waitOnboarded waits for the Onboarded condition with the given status and
// reason at the current generation, and returns the Tenant.
func (w *world) waitOnboarded(name string, status metav1.ConditionStatus, reason string) *tenancyv1alpha1.Tenant {
	w.t.Helper()
	var last string
	var tn *tenancyv1alpha1.Tenant
	testenv.Eventually(w.t, time.Minute, "Tenant "+name+" Onboarded="+string(status)+" "+reason, func() (bool, string) {
		tn = w.tenant(name)
		c := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded)
		if c == nil {
			return false, "no Onboarded condition"
		}
		last = fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
		return c.Status == status && c.Reason == reason && c.ObservedGeneration == tn.Generation, last
	})
	return tn
}

func (w *world) waitGone(obj client.Object) {
	w.t.Helper()
	testenv.Eventually(w.t, time.Minute, fmt.Sprintf("%T %s to be deleted", obj, obj.GetName()), func() (bool, string) {
		err := w.c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		return false, fmt.Sprintf("err=%v finalizers=%v", err, obj.GetFinalizers())
	})
}

// onboardingTenant selects namespaces by name and onboards them into rgs.
func onboardingTenant(name string, namespaces, rgs []string) *tenancyv1alpha1.Tenant {
	return &tenancyv1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: tenancyv1alpha1.TenantSpec{
			Namespaces: namespaces, Subscriptions: []string{subID}, ResourceGroups: []string{name + "-*"},
			Onboarding: &tenancyv1alpha1.TenantOnboarding{ResourceGroups: rgs, Location: location},
		},
	}
}

func stepStates(tn *tenancyv1alpha1.Tenant) map[string]string {
	out := map[string]string{}
	if tn.Status.Onboarding == nil {
		return out
	}
	for _, s := range tn.Status.Onboarding.Steps {
		out[s.Namespace+"/"+s.Name] = s.State
	}
	return out
}

func findStep(tn *tenancyv1alpha1.Tenant, ns, name string) *tenancyv1alpha1.OnboardingStep {
	if tn.Status.Onboarding == nil {
		return nil
	}
	for i, s := range tn.Status.Onboarding.Steps {
		if s.Namespace == ns && s.Name == name {
			return &tn.Status.Onboarding.Steps[i]
		}
	}
	return nil
}

// namespaceCredential is what the operator's broker hands a reconciler of
// the namespace: its default Identity's credential.
func (w *world) namespaceCredential(ns string) azcore.TokenCredential {
	w.t.Helper()
	// As the operator would: only its user may mint the provisioner's tokens.
	asOperator, err := client.New(w.env.OperatorConfig, client.Options{Scheme: w.env.Scheme})
	if err != nil {
		w.t.Fatal(err)
	}
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: asOperator}, time.Hour)
	broker := identity.NewBroker(asOperator, identity.NewCredentials(tokens, w.opts))
	cred, _, err := broker.CredentialFor(w.t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns}})
	if err != nil {
		w.t.Fatal(err)
	}
	return cred
}

func testenvClient(t testing.TB) client.Client { return testenv.Get(t).Client }

func condString(c *metav1.Condition) string {
	if c == nil {
		return "<none>"
	}
	return string(c.Status) + " " + c.Reason + ": " + c.Message
}

func itoa(n int) string { return strconv.Itoa(n) }

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// expectEvent waits for an event about the Tenant with reason and a note
// containing text, as `kubectl events --for tenant/<name>` shows it.
func (w *world) expectEvent(tenant, reason, text string) {
	w.t.Helper()
	testenv.Eventually(w.t, time.Minute, "event "+reason+" on Tenant "+tenant, func() (bool, string) {
		var list eventsv1.EventList
		if err := w.c.List(context.Background(), &list); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range list.Items {
			if e.Regarding.Kind == "Tenant" && e.Regarding.Name == tenant {
				if e.Reason == reason && strings.Contains(e.Note, text) {
					return true, ""
				}
				seen = append(seen, e.Reason)
			}
		}
		return false, "events: " + strings.Join(seen, ", ")
	})
}
