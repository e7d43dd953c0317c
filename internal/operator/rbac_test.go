package operator_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/api"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/identity/reservation"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

func TestMain(m *testing.M) { testenv.Main(m, testenv.WithKinds(rbacKinds)) }

// rbacKinds are the tests' kinds and one kind of every API group: the generated
// ClusterRole grants each Azure group's resources as a whole ('*', which the test checks),
// so an informer per group proves it for all of the group's kinds, where one per kind (300
// of them, under the race detector) cost the package about twice the CPU.
var rbacKinds = func() *crdinstall.Pattern {
	first := map[string]string{}
	var groups []string
	if _, err := api.CRDsOf(func(gk schema.GroupKind, _ string) bool {
		if _, ok := first[gk.Group]; !ok {
			first[gk.Group] = gk.Kind
			groups = append(groups, gk.Group)
		}
		return false
	}); err != nil {
		panic(err)
	}
	patterns := make([]string, 0, len(groups))
	for _, g := range groups {
		patterns = append(patterns, g+"/"+first[g])
	}
	return testenv.KindsAnd(patterns...)
}()

const (
	tenantID   = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	subID      = "00000000-0000-0000-0000-0000000000cc"
	clientID   = "eeeeeeee-0000-0000-0000-000000000001"
	platformID = "eeeeeeee-0000-0000-0000-000000000002"
)

// The operator runs with nothing but the generated ClusterRole: a ServiceAccount
// bound to charts/aztenant/files/role.yaml onboards a namespace and gets a
// resource group Ready, and cannot do what it does not need.
func TestOperatorWorksWithItsGeneratedClusterRole(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	c := env.Client
	mk := func(o client.Object) {
		t.Helper()
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}

	raw, err := os.ReadFile("../../charts/aztenant/files/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(raw, &role); err != nil {
		t.Fatal(err)
	}
	// Each Azure group's kinds are granted as a whole ('*', '*/status', '*/finalizers'):
	// serving one kind of each proves the role for all of them (rbacKinds).
	wholeGroup := func(r string) bool { return r == "*" || strings.HasPrefix(r, "*/") }
	for _, rule := range role.Rules {
		for _, g := range rule.APIGroups {
			if strings.HasSuffix(g, ".aztenant.io") && !slices.Contains(crdinstall.CoreGroups, g) && !slices.ContainsFunc(rule.Resources, wholeGroup) {
				t.Fatalf("the role grants group %s resources %v one by one: serve every kind in this test (testenv.EveryKind)", g, rule.Resources)
			}
		}
	}
	mk(&role)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "aztenant-system"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// As the chart does, the reservation of the provisioner accounts names
	// this ServiceAccount as the operator.
	var users corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: testenv.OperatorNamespace, Name: reservation.ParamsName}, &users); err != nil {
		t.Fatal(err)
	}
	users.Data[reservation.ParamsKey] += ",system:serviceaccount:aztenant-system:aztenant-operator"
	if err := c.Update(ctx, &users); err != nil {
		t.Fatal(err)
	}
	mk(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "aztenant-operator", Namespace: "aztenant-system"}})
	mk(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "aztenant-operator"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "aztenant-operator", Namespace: "aztenant-system"}}})
	asOperator := rest.CopyConfig(env.Config)
	asOperator.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:aztenant-system:aztenant-operator"}

	// What it must not be able to do.
	cs := kubernetes.NewForConfigOrDie(asOperator)
	for _, ra := range []authorizationv1.ResourceAttributes{
		{Verb: "list", Resource: "pods"},
		{Verb: "delete", Resource: "secrets", Namespace: "team"},
		{Verb: "delete", Resource: "namespaces"},
		{Verb: "update", Group: "tenancy.aztenant.io", Resource: "tenants"},
		{Verb: "update", Resource: "serviceaccounts", Namespace: "team"},
		{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "rolebindings", Namespace: "team"},
	} {
		review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &ra}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed {
			t.Errorf("the operator may %s %s.%s: more than it needs", ra.Verb, ra.Resource, ra.Group)
		}
	}

	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: tenantID}},
		Subscriptions:  []emulator.Subscription{{ID: subID, TenantID: tenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
		Principals: []emulator.Principal{{ClientID: clientID, TenantID: tenantID,
			FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL, Subject: "system:serviceaccount:team:" + identity.ProvisionerServiceAccount, Audiences: []string{identity.TokenAudience}}},
			Roles:                []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + subID}}},
			{ClientID: platformID, TenantID: tenantID,
				FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL, Subject: "system:serviceaccount:aztenant-system:platform", Audiences: []string{identity.TokenAudience}}},
				Roles:                []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + subID}, {Role: "User Access Administrator", Scope: "/subscriptions/" + subID}}},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer emu.Close()

	mk(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})
	mk(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: identity.ProvisionerServiceAccount, Namespace: "team"}})
	mk(&identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: clientID, TenantID: tenantID, SubscriptionID: subID}})
	mk(&tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "team"}, Spec: tenancyv1alpha1.TenantSpec{
		Namespaces: []string{"team"}, Subscriptions: []string{subID}, ResourceGroups: []string{"team-*"}}})
	rg := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Name: "team-app", Namespace: "team"},
		Spec: resourcesv1alpha1.ResourceGroupSpec{Location: "westeurope"}}
	mk(rg)
	// Onboarding with the platform identity, also under the generated role.
	mk(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: "aztenant-system"}})
	mk(&identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: "aztenant-system"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "platform", ClientID: platformID, TenantID: tenantID, SubscriptionID: subID}})
	mk(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "onb"}})
	onb := &tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "onb"}, Spec: tenancyv1alpha1.TenantSpec{
		Namespaces: []string{"onb"}, Subscriptions: []string{subID}, ResourceGroups: []string{"onb-*"},
		Onboarding: &tenancyv1alpha1.TenantOnboarding{ResourceGroups: []string{"onb-app"}, Location: "westeurope"}}}
	mk(onb)

	scheme, err := operator.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	served := tenancy.ServeTenants()
	mgr, err := ctrl.NewManager(asOperator, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: operator.CacheOptions(served), Logger: testenv.FailureLog(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cloud := identity.Cloud{AuthorityHost: emu.URL() + "/", ARMEndpoint: emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: emu.CAPEM()}
	if _, err := operator.Setup(mctx, mgr, operator.Config{Cloud: cloud, Served: served, Kinds: rbacKinds, Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond},
		PlatformIdentity: types.NamespacedName{Namespace: "aztenant-system", Name: "platform"}}); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- mgr.Start(mctx) }()
	// The operator starts an informer per served kind before its first reconcile: seconds
	// on an idle machine, more than a minute on a busy one (CI).
	// Once its cache has synced, each step below is a reconcile or two.
	syncCtx, stopSync := context.WithTimeout(ctx, 5*time.Minute)
	defer stopSync()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		t.Fatal("the operator's cache did not sync in 5 minutes under the generated ClusterRole: a kind it may not list or watch?")
	}

	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(rg), rg); err != nil {
			t.Fatal(err)
		}
		if cond := meta.FindStatusCondition(rg.Status.Conditions, "Ready"); cond != nil && cond.Status == metav1.ConditionTrue {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("resource group not Ready under the generated ClusterRole: %+v", rg.Status.Conditions)
		}
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(onb), onb); err != nil {
			t.Fatal(err)
		}
		cond := meta.FindStatusCondition(onb.Status.Conditions, onboarding.ConditionOnboarded)
		if cond != nil && cond.Status == metav1.ConditionTrue {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Tenant not onboarded under the generated ClusterRole: %+v", onb.Status.Conditions)
		}
	}
	if err := c.Delete(ctx, onb); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(onb), onb); apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Tenant not offboarded under the generated ClusterRole: %+v", onb.Status.Conditions)
		}
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("manager: %v", err)
	}
}
