package lifecycle_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

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
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// The onboarding fixture: the platform's app registration, federated with
// the operator namespace's ServiceAccount as onboarding needs, and an
// administrator (Owner, with a secret) who sets up Azure outside aztenant.
const (
	platformClientID = "aaaaaaaa-2222-4222-8222-000000000001"
	adminClientID    = "aaaaaaaa-2222-4222-8222-000000000002"
	adminSecret      = "admin-s3cret"
	sub              = stacktest.SubscriptionID
)

// A namespace onboarded by its Tenant, with resources in its onboarded
// resource group, is deleted: its resources are deleted in Azure with its
// own identity (the storage account and the identity: their container and
// credential go with them), then onboarding offboards the namespace it no
// longer has. Deleting the Tenant afterwards removes the rest of what
// onboarding created, so the emulator holds none of it, and nothing else
// was deleted: not the shared platform-identities group, not another
// team's identity in it, not a group the Tenant never created.
func TestOffboardingAfterTheNamespaceIsDeleted(t *testing.T) {
	const ops, ns, tenant = "offb-ops", "offb-a", "offb"
	env := testenv.Get(t)
	ctx := t.Context()
	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: stacktest.TenantID}},
		Subscriptions:  []emulator.Subscription{{ID: sub, TenantID: stacktest.TenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
		Principals: []emulator.Principal{
			{ClientID: platformClientID, TenantID: stacktest.TenantID, DisplayName: "platform",
				Roles: []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + sub}, {Role: "User Access Administrator", Scope: "/subscriptions/" + sub}},
				FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL,
					Subject: onboarding.Subject(ops, "platform"), Audiences: []string{identity.TokenAudience}}}},
			{ClientID: adminClientID, TenantID: stacktest.TenantID, DisplayName: "admin", ClientSecret: adminSecret,
				Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + sub}}},
		},
	}})
	must(t, err)
	must(t, emu.Start(context.Background()))
	t.Cleanup(func() { emu.Close() })
	platformOID, err := emu.PrincipalID(platformClientID)
	must(t, err)

	// What the platform has before onboarding anyone: the identities' group,
	// another team's identity in it, and a group of its own.
	admin, err := azidentity.NewClientSecretCredential(stacktest.TenantID, adminClientID, adminSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: emu.ClientOptions(), DisableInstanceDiscovery: true})
	must(t, err)
	armOpts := &arm.ClientOptions{ClientOptions: emu.ClientOptions(), DisableRPRegistration: true}
	rgs, err := armresources.NewResourceGroupsClient(sub, admin, armOpts)
	must(t, err)
	for _, rg := range []string{onboarding.DefaultIdentityResourceGroup, "offb-platform"} {
		_, err := rgs.CreateOrUpdate(ctx, rg, armresources.ResourceGroup{Location: to.Ptr(stacktest.Location)}, nil)
		must(t, err)
	}
	mis, err := armmsi.NewUserAssignedIdentitiesClient(sub, admin, armOpts)
	must(t, err)
	_, err = mis.CreateOrUpdate(ctx, onboarding.DefaultIdentityResourceGroup, "aztenant-another-team", armmsi.Identity{Location: to.Ptr(stacktest.Location)}, nil)
	must(t, err)
	bystanders := []string{
		onboarding.ResourceGroupID(sub, onboarding.DefaultIdentityResourceGroup),
		onboarding.ResourceGroupID(sub, "offb-platform"),
		onboarding.ManagedIdentityID(sub, onboarding.DefaultIdentityResourceGroup, "another-team"),
	}
	for _, id := range bystanders {
		if !inAzureOf(emu, id) {
			t.Fatalf("fixture: %s was not created", id)
		}
	}

	c := env.Client
	for _, n := range []string{ops, ns} {
		must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}))
	}
	must(t, c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: ops}}))
	must(t, c.Create(ctx, &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: ops},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "platform", ClientID: platformClientID, TenantID: stacktest.TenantID, SubscriptionID: sub}}))
	startOnboardingOperator(t, env, emu, types.NamespacedName{Namespace: ops, Name: "platform"}, tenant)

	must(t, c.Create(ctx, &tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant}, Spec: tenancyv1alpha1.TenantSpec{
		Namespaces: []string{ns}, Subscriptions: []string{sub}, ResourceGroups: []string{tenant + "-*"},
		Onboarding: &tenancyv1alpha1.TenantOnboarding{ResourceGroups: []string{"offb-app"}, Location: stacktest.Location},
	}}))
	var tn tenancyv1alpha1.Tenant
	testenv.Eventually(t, wait, "Tenant onboarded", func() (bool, string) {
		must(t, c.Get(ctx, client.ObjectKey{Name: tenant}, &tn))
		cond := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded)
		return cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == tn.Generation, condString(cond)
	})
	created := map[string]bool{}
	for _, cr := range tn.Status.Onboarding.Created {
		if strings.HasPrefix(cr.ID, "/subscriptions/") {
			created[strings.ToLower(cr.ID)] = true
		}
	}
	for _, want := range []string{onboarding.ResourceGroupID(sub, "offb-app"), onboarding.ManagedIdentityID(sub, onboarding.DefaultIdentityResourceGroup, ns)} {
		if !created[strings.ToLower(want)] {
			t.Fatalf("onboarding did not record %s: %v", want, tn.Status.Onboarding.Created)
		}
	}

	// The team's resources, in its onboarded group.
	appRG := &azurev1alpha1.OwnerReference{ARMID: onboarding.ResourceGroupID(sub, "offb-app")}
	uai := &managedidentityv1alpha1.UserAssignedIdentity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
		Spec: managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: appRG, Location: stacktest.Location}}
	fic := &managedidentityv1alpha1.FederatedIdentityCredential{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app-workload"},
		Spec: managedidentityv1alpha1.FederatedIdentityCredentialSpec{Owner: &azurev1alpha1.OwnerReference{Name: "app"},
			Issuer: env.IssuerURL, Subject: "system:serviceaccount:" + ns + ":workload"}}
	account := &storagev1alpha1.StorageAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "offbst"},
		Spec: storagev1alpha1.StorageAccountSpec{Owner: appRG, Location: stacktest.Location, Kind: "StorageV2",
			Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"},
			OperatorSpec: &storagev1alpha1.StorageAccountOperatorSpec{Secrets: &storagev1alpha1.StorageAccountOperatorSecrets{
				Key1: &azurev1alpha1.SecretDestination{Name: "offbst-keys", Key: "key1"}}}}}
	container := &storagev1alpha1.StorageAccountsBlobServicesContainer{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data"},
		Spec: storagev1alpha1.StorageAccountsBlobServicesContainerSpec{Owner: &azurev1alpha1.OwnerReference{Name: "offbst"}}}
	objs := []azurev1alpha1.Resource{uai, fic, account, container}
	for _, o := range objs {
		must(t, c.Create(ctx, o))
	}
	for _, o := range objs {
		testenv.Eventually(t, wait, o.GetName()+" Ready", func() (bool, string) {
			must(t, c.Get(ctx, client.ObjectKeyFromObject(o), o))
			cond := meta.FindStatusCondition(o.AzureStatus().Conditions, reconcilers.ConditionReady)
			return cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == o.GetGeneration(), condString(cond)
		})
	}
	var id identityv1alpha1.Identity
	must(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &id))
	principal := id.Status.PrincipalID
	if principal == "" || principal == platformOID {
		t.Fatalf("the namespace's Identity exchanges as %q", principal)
	}

	mark := lastSeqOf(emu)
	must(t, c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	testenv.Eventually(t, wait, "namespace "+ns+" deleted", func() (bool, string) {
		var n corev1.Namespace
		err := c.Get(ctx, client.ObjectKey{Name: ns}, &n)
		return apierrors.IsNotFound(err), fmt.Sprintf("phase %s, conditions %v", n.Status.Phase, n.Status.Conditions)
	})
	for _, o := range objs {
		if inAzureOf(emu, o.AzureStatus().ID) {
			t.Errorf("%s is left in Azure after its namespace was deleted", o.AzureStatus().ID)
		}
	}

	must(t, c.Delete(ctx, &tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant}}))
	testenv.Eventually(t, wait, "Tenant offboarded and gone", func() (bool, string) {
		err := c.Get(ctx, client.ObjectKey{Name: tenant}, &tn)
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		return false, fmt.Sprintf("err %v, conditions %v", err, tn.Status.Conditions)
	})

	for id := range created {
		if inAzureOf(emu, id) {
			t.Errorf("onboarding's %s is left in Azure", id)
		}
	}
	for _, id := range bystanders {
		if !inAzureOf(emu, id) {
			t.Errorf("%s, which onboarding did not create, was deleted", id)
		}
	}
	// Every DELETE was the namespace's principal deleting its own objects'
	// resources (not their children: ARM deleted those with them), or the
	// platform's deleting what onboarding recorded.
	own := map[string]bool{strings.ToLower(uai.Status.ID): true, strings.ToLower(account.Status.ID): true}
	for _, e := range emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm", Method: http.MethodDelete}) {
		path := strings.ToLower(e.Path)
		switch {
		case e.PrincipalID == principal && own[path]:
			delete(own, path)
		case e.PrincipalID == platformOID && created[path]:
		default:
			t.Errorf("DELETE %s (%d) by %s: neither the namespace deleting its own resource once nor offboarding", e.Path, e.Status, e.PrincipalID)
		}
	}
	if len(own) > 0 {
		t.Errorf("not deleted by the namespace's identity: %v", own)
	}
}

// startOnboardingOperator runs the operator with a platform identity, serving
// the namespaces Tenants select, until the test ends; the Tenants named are
// then stripped of finalizers so a failed test leaves nothing behind.
func startOnboardingOperator(t *testing.T, env *testenv.Env, emu *emulator.Emulator, platform types.NamespacedName, tenants ...string) {
	t.Helper()
	t.Cleanup(func() {
		for _, name := range tenants {
			var tn tenancyv1alpha1.Tenant
			if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, &tn); err == nil {
				base := tn.DeepCopy()
				tn.Finalizers = nil
				_ = env.Client.Patch(context.Background(), &tn, client.MergeFrom(base))
			}
		}
	})
	scheme, err := operator.Scheme()
	must(t, err)
	served := tenancy.ServeTenants()
	mgr, err := ctrl.NewManager(env.OperatorConfig, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: operator.CacheOptions(served), Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	must(t, err)
	mctx, cancel := context.WithCancel(context.Background())
	cloud := identity.Cloud{AuthorityHost: emu.URL() + "/", ARMEndpoint: emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: emu.CAPEM()}
	if _, err := operator.Setup(mctx, mgr, operator.Config{Cloud: cloud, Served: served,
		Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond, Workers: 2}, PlatformIdentity: platform}); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
}

func inAzureOf(emu *emulator.Emulator, id string) bool {
	_, err := emu.Resource(id)
	return err == nil
}

func lastSeqOf(emu *emulator.Emulator) uint64 {
	if e := emu.Audit(emulator.AuditFilter{Limit: 1}); len(e) > 0 {
		return e[0].Seq
	}
	return 0
}
