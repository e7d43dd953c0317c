package operator_test

import (
	"context"
	"os"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/identity/reservation"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/sharding"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
)

// The sharded operator (RunSharded) runs with the generated ClusterRole and
// the chart's lease Role in its namespace only: it takes the shards, labels
// the objects with their bucket (Plans and Identities included, which
// needs patch), caches them and gets a resource group Ready; it hands its
// shards back and removes its membership lease when stopped.
func TestShardedOperatorWorksWithItsRoles(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	c := env.Client
	const (
		sa      = "aztenant-sharded"
		ns      = "aztenant-system"
		team    = "shardteam"
		teamApp = "eeeeeeee-0000-0000-0000-000000000003"
	)
	user := "system:serviceaccount:" + ns + ":" + sa
	mk := func(o client.Object) {
		t.Helper()
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
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
	mk(&role)
	mk(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	var users corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: testenv.OperatorNamespace, Name: reservation.ParamsName}, &users); err != nil {
		t.Fatal(err)
	}
	users.Data[reservation.ParamsKey] += "," + user
	if err := c.Update(ctx, &users); err != nil {
		t.Fatal(err)
	}
	mk(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}})
	mk(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: sa},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: ns}}})
	// As the chart's <release>-leader-election Role.
	mk(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: sa + "-leases", Namespace: ns}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	}})
	mk(&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: sa + "-leases", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sa + "-leases"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: ns}}})
	asOperator := rest.CopyConfig(env.Config)
	asOperator.Impersonate = rest.ImpersonationConfig{UserName: user}

	// The labeller patches every aztenant namespaced kind, Plans included.
	cs := kubernetes.NewForConfigOrDie(asOperator)
	for _, ra := range []authorizationv1.ResourceAttributes{
		{Verb: "patch", Group: "plan.aztenant.io", Resource: "plans", Namespace: team},
		{Verb: "patch", Group: "identity.aztenant.io", Resource: "identities", Namespace: team},
		{Verb: "patch", Group: "resources.aztenant.io", Resource: "resourcegroups", Namespace: team},
	} {
		review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &ra}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !review.Status.Allowed {
			t.Errorf("the sharded operator may not %s %s.%s: the labeller needs it", ra.Verb, ra.Resource, ra.Group)
		}
	}

	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: tenantID}},
		Subscriptions:  []emulator.Subscription{{ID: subID, TenantID: tenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
		Principals: []emulator.Principal{{ClientID: teamApp, TenantID: tenantID,
			FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: env.IssuerURL, Subject: "system:serviceaccount:" + team + ":" + identity.ProvisionerServiceAccount, Audiences: []string{identity.TokenAudience}}},
			Roles:                []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + subID}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer emu.Close()

	mk(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}})
	mk(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: identity.ProvisionerServiceAccount, Namespace: team}})
	mk(&identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: team},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: teamApp, TenantID: tenantID, SubscriptionID: subID}})
	mk(&tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: team}, Spec: tenancyv1alpha1.TenantSpec{
		Namespaces: []string{team}, Subscriptions: []string{subID}, ResourceGroups: []string{team + "-*"}}})
	rg := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Name: team + "-app", Namespace: team},
		Spec: resourcesv1alpha1.ResourceGroupSpec{Location: "westeurope"}}
	mk(rg)

	scheme, err := operator.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	cloud := identity.Cloud{AuthorityHost: emu.URL() + "/", ARMEndpoint: emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: emu.CAPEM()}
	mctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		errc <- operator.RunSharded(mctx, asOperator, scheme,
			// The kinds of the tests (the package's control plane has every CRD, for the
			// generated role's test): each served kind is an informer and a controller more.
			operator.Config{Cloud: cloud, Served: tenancy.ServeTenants(), Kinds: testenv.TestKinds, Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond}},
			operator.ShardOptions{Shards: 2, Identity: "r0", LeaseNamespace: ns, LeasePrefix: "rbac",
				MetricsAddr: "0", ProbeAddr: "0"}, nil)
	}()
	// Its shards taken, the inner manager starts an informer per served kind before its
	// first reconcile.
	testenv.Eventually(t, 3*time.Minute, "resource group labelled and Ready under the roles", func() (bool, string) {
		select {
		case err := <-errc:
			t.Fatalf("the sharded operator ended: %v", err)
		default:
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(rg), rg); err != nil {
			return false, err.Error()
		}
		cond := meta.FindStatusCondition(rg.Status.Conditions, "Ready")
		return cond != nil && cond.Status == metav1.ConditionTrue && rg.Labels[sharding.LabelBucket] == sharding.BucketLabel(team),
			rg.Labels[sharding.LabelBucket] + " " + fmtCond(cond)
	})
	var id identityv1alpha1.Identity
	if err := c.Get(ctx, client.ObjectKey{Namespace: team, Name: "default"}, &id); err != nil {
		t.Fatal(err)
	}
	if id.Labels[sharding.LabelBucket] != sharding.BucketLabel(team) {
		t.Errorf("Identity labels %v", id.Labels)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("the sharded operator: %v", err)
	}
	// Stopped cleanly: no shard held, no membership left.
	for k := range 2 {
		l, err := cs.CoordinationV1().Leases(ns).Get(ctx, sharding.ShardLease("rbac", k), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if h := l.Spec.HolderIdentity; h != nil && *h != "" {
			t.Errorf("shard %d still held by %s after a clean stop", k, *h)
		}
	}
	if _, err := cs.CoordinationV1().Leases(ns).Get(ctx, sharding.MemberLease("rbac", "r0"), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("membership lease after a clean stop: %v", err)
	}
}

func fmtCond(c *metav1.Condition) string {
	if c == nil {
		return "no Ready condition"
	}
	return string(c.Status) + "/" + c.Reason + ": " + c.Message
}
