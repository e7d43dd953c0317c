package identity_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// The tests run in parallel, each with its namespaces, emulator and manager
// (whose logger is the test's); nothing logs through the global logger.
func TestMain(m *testing.M) {
	testenv.Main(m)
}

const (
	tenantID = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	subID    = "00000000-0000-0000-0000-00000000aaaa"
	clientA  = "aaaaaaaa-0000-0000-0000-000000000001"
	clientA2 = "aaaaaaaa-0000-0000-0000-000000000002"
	clientB  = "bbbbbbbb-0000-0000-0000-000000000001"
)

// world is one test's Azure (the emulator) and its tenant namespaces.
type world struct {
	env *testenv.Env
	// c acts as the operator's user: admission lets only it mint tokens
	// for, and annotate, the reserved provisioner accounts.
	c     client.Client
	emu   *emulator.Emulator
	cloud identity.Cloud
	opts  azcore.ClientOptions
}

// newWorld starts an emulator trusting the API server's issuer, with app
// registrations federated to the provisioner ServiceAccount of the given namespaces:
// clientA and clientA2 to nsA, clientB to nsB, each Contributor on the subscription.
func newWorld(t testing.TB, nsA, nsB string) *world {
	t.Helper()
	env := testenv.Get(t)
	fic := func(ns string) []emulator.FederatedCredential {
		return []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL, Subject: "system:serviceaccount:" + ns + ":" + identity.ProvisionerServiceAccount, Audiences: []string{identity.TokenAudience}}}
	}
	contributor := []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + subID}}
	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: tenantID}},
		Subscriptions:  []emulator.Subscription{{ID: subID, TenantID: tenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
		Principals: []emulator.Principal{
			{ClientID: clientA, TenantID: tenantID, DisplayName: "team-a", FederatedCredentials: fic(nsA), Roles: contributor},
			{ClientID: clientA2, TenantID: tenantID, DisplayName: "team-a-2", FederatedCredentials: fic(nsA), Roles: contributor},
			{ClientID: clientB, TenantID: tenantID, DisplayName: "team-b", FederatedCredentials: fic(nsB), Roles: contributor},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	cloud := identity.Cloud{AuthorityHost: emu.URL() + "/", ARMEndpoint: emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: emu.CAPEM()}
	opts, err := cloud.ClientOptions()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.OperatorConfig, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &world{env: env, c: c, emu: emu, cloud: cloud, opts: opts}
}

func (w *world) broker() *identity.Broker {
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: w.c}, time.Hour)
	return identity.NewBroker(w.c, identity.NewCredentials(tokens, w.opts))
}

func (w *world) principal(t testing.TB, clientID string) string {
	t.Helper()
	oid, err := w.emu.PrincipalID(clientID)
	if err != nil {
		t.Fatal(err)
	}
	return oid
}

// createRG creates a resource group in Azure with cred, as a reconciler would.
func (w *world) createRG(ctx context.Context, cred azcore.TokenCredential, name string) error {
	rgs, err := armresources.NewResourceGroupsClient(subID, cred, &arm.ClientOptions{ClientOptions: w.opts, DisableRPRegistration: true})
	if err != nil {
		return err
	}
	_, err = rgs.CreateOrUpdate(ctx, name, armresources.ResourceGroup{Location: to.Ptr("westeurope")}, nil)
	return err
}

// tenantNamespace creates a namespace with the provisioner ServiceAccount annotated
// with clientID (if not empty), and an Identity named "default" for it.
func tenantNamespace(t testing.TB, c client.Client, ns, clientID string) {
	t.Helper()
	ctx := t.Context()
	must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: identity.ProvisionerServiceAccount, Namespace: ns, Annotations: map[string]string{
		identity.AnnotationTenantID: tenantID,
	}}}
	if clientID != "" {
		sa.Annotations[identity.AnnotationClientID] = clientID
	}
	must(t, c.Create(ctx, sa))
	must(t, c.Create(ctx, &identityv1alpha1.Identity{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns},
		Spec:       identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, SubscriptionID: subID},
	}))
}

// resource stands for any namespaced aztenant resource: the broker only reads
// its namespace and annotations.
func resource(ns string, annotations map[string]string) client.Object {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: ns, Annotations: annotations}}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func metav1ObjectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

// tenantNamespaceWithoutIdentity creates a namespace with an annotated
// ServiceAccount but no Identity.
func tenantNamespaceWithoutIdentity(t testing.TB, c client.Client, ns string) {
	t.Helper()
	must(t, c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	must(t, c.Create(t.Context(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: identity.ProvisionerServiceAccount, Namespace: ns}}))
}
