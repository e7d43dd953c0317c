package charttest

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/sharding"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func shardingValues(extra map[string]any) map[string]any {
	v := map[string]any{"replicaCount": 3, "sharding": map[string]any{"enabled": true}}
	for k, x := range extra {
		v[k] = x
	}
	return v
}

// With sharding the Deployment passes --shards (replicaCount by default),
// the lease prefix, duration and namespace, and the pod's name and
// namespace; no --leader-elect. The lease Role and the label guard come
// with it.
func TestTemplateSharding(t *testing.T) {
	m := render(t, shardingValues(nil))
	d := m.deployment(t)
	a := args(t, d)
	wantFlag(t, a, "shards", "3")
	wantFlag(t, a, "shard-lease-prefix", fullname)
	wantFlag(t, a, "shard-lease-duration", "10s")
	wantFlag(t, a, "leader-election-namespace", namespace)
	wantNoFlag(t, a, "leader-elect")
	env := map[string]string{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			env[e.Name] = e.ValueFrom.FieldRef.FieldPath
		}
	}
	if env["POD_NAME"] != "metadata.name" || env["POD_NAMESPACE"] != "metadata.namespace" {
		t.Errorf("downward API env %v", env)
	}
	var role rbacv1.Role
	m.one(t, "Role", &role)
	if role.Namespace != namespace || !strings.Contains(role.Rules[0].String(), "leases") {
		t.Errorf("Role %s/%s rules %v", role.Namespace, role.Name, role.Rules)
	}
	if n := len(m.ofKind("ValidatingAdmissionPolicy").named(fullname + "-shard-label-guard")); n != 1 {
		t.Errorf("%d shard label guards rendered", n)
	}
	if n := len(m.ofKind("ValidatingAdmissionPolicyBinding").named(fullname + "-shard-label-guard")); n != 1 {
		t.Errorf("%d shard label guard bindings rendered", n)
	}

	a = args(t, render(t, shardingValues(map[string]any{"sharding": map[string]any{"enabled": true, "shards": 8, "leaseDuration": "6s"},
		"leaderElection": map[string]any{"enabled": false}})).deployment(t))
	wantFlag(t, a, "shards", "8")
	wantFlag(t, a, "shard-lease-duration", "6s")

	// Off (the default): no flags, env, guard.
	m = render(t, nil)
	a = args(t, m.deployment(t))
	wantNoFlag(t, a, "shards")
	if len(m.deployment(t).Spec.Template.Spec.Containers[0].Env) != 0 {
		t.Error("env rendered without sharding")
	}
	if n := len(m.named(fullname + "-shard-label-guard")); n != 0 {
		t.Errorf("shard label guard rendered without sharding")
	}
}

func TestShardingRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"one replica", map[string]any{"sharding": map[string]any{"enabled": true}}, "sharding.enabled needs at least 2 shards"},
		{"with onboarding", shardingValues(map[string]any{"platformIdentity": fullValues()["platformIdentity"]}), "sharding.enabled does not support platformIdentity.enabled"},
		{"too many shards", shardingValues(map[string]any{"sharding": map[string]any{"enabled": true, "shards": 65}}), "/sharding/shards"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := templateErr(t, tc.values)
			if err == nil || !strings.Contains(out, tc.want) {
				t.Errorf("helm template: %v, want an error naming %q:\n%s", err, tc.want, out)
			}
		})
	}
}

// The label guard, as rendered, on a real API server: nobody but the
// operator's ServiceAccount sets, changes or removes aztenant.io/shard-bucket
// on an aztenant object; other labels stay free.
func TestShardLabelGuard(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	all, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	var rg []*apiextensionsv1.CustomResourceDefinition
	for _, c := range all {
		if c.Name == "resourcegroups.resources.aztenant.io" {
			rg = append(rg, c)
		}
	}
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{CRDs: rg}); err != nil {
		t.Fatal(err)
	}
	m := render(t, shardingValues(nil))
	for _, o := range m.named(fullname + "-shard-label-guard") {
		o.SetResourceVersion("")
		if err := env.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	const ns = "shard-guard"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// The operator's ServiceAccount, with the rights to write the objects.
	operatorUser := "system:serviceaccount:" + namespace + ":" + fullname
	if err := env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "shard-guard-operator"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: operatorUser}}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	asOperatorCfg := rest.CopyConfig(env.Config)
	asOperatorCfg.Impersonate = rest.ImpersonationConfig{UserName: operatorUser}
	asOperator, err := client.New(asOperatorCfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	obj := func(name string, labels map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("resources.aztenant.io/v1alpha1")
		u.SetKind("ResourceGroup")
		u.SetNamespace(ns)
		u.SetName(name)
		u.SetLabels(labels)
		_ = unstructured.SetNestedField(u.Object, "westeurope", "spec", "location")
		return u
	}
	bucket := sharding.BucketLabel(ns)
	other := "63"
	if bucket == other {
		other = "0"
	}
	refused := func(err error) bool { return apierrors.IsForbidden(err) || apierrors.IsInvalid(err) }

	// A tenant (any user but the operator; the admin here) creating an
	// object with the label is refused, once the policy is active.
	testenv.Eventually(t, 30*time.Second, "the guard refuses a tenant's label", func() (bool, string) {
		err := env.Client.Create(ctx, obj("preset", map[string]string{sharding.LabelBucket: other}))
		return refused(err), "create with the label: " + errString(err)
	})
	plain := obj("plain", map[string]string{"team": "a"})
	if err := env.Client.Create(ctx, plain); err != nil {
		t.Fatalf("create without the label: %v", err)
	}
	// The operator labels it.
	if err := asOperator.Patch(ctx, obj("plain", nil), client.RawPatch("application/merge-patch+json",
		[]byte(`{"metadata":{"labels":{"`+sharding.LabelBucket+`":"`+bucket+`"}}}`))); err != nil {
		t.Fatalf("the operator labels: %v", err)
	}
	for _, tc := range []struct {
		name  string
		patch string
	}{
		{"moves it to another bucket", `{"metadata":{"labels":{"` + sharding.LabelBucket + `":"` + other + `"}}}`},
		{"removes the label", `{"metadata":{"labels":{"` + sharding.LabelBucket + `":null}}}`},
	} {
		err := env.Client.Patch(ctx, obj("plain", nil), client.RawPatch("application/merge-patch+json", []byte(tc.patch)))
		if !refused(err) || !strings.Contains(err.Error(), "only the aztenant operator sets the label") {
			t.Errorf("a tenant %s: %v, want refused by the guard", tc.name, err)
		}
	}
	// Other labels, and the object with its label unchanged, stay free.
	if err := env.Client.Patch(ctx, obj("plain", nil), client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"team":"b"}}}`))); err != nil {
		t.Errorf("a tenant changes another label: %v", err)
	}
	// Objects of other groups are not the guard's.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "free", Namespace: ns, Labels: map[string]string{sharding.LabelBucket: other}}}
	if err := env.Client.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Errorf("a ConfigMap with the label: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}
