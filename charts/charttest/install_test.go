package charttest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// installValues: the emulator's cloud with its CA from a ConfigMap, a platform
// identity, and tokens restricted to the reserved provisioner accounts.
func installValues() map[string]any {
	return map[string]any{
		"azure": map[string]any{
			"authorityHost": "https://azure-emulator.aztenant-system:8443/", "armEndpoint": "https://azure-emulator.aztenant-system:8444/",
			"caBundle": map[string]any{"configMap": map[string]any{"name": "emulator-ca"}},
		},
		"platformIdentity": map[string]any{"enabled": true, "clientID": "11111111-2222-3333-4444-555555555555",
			"tenantID": "72f988bf-86f1-41af-91ab-2d7cd011db47", "subscriptionID": "00000000-0000-0000-0000-0000000000cc"},
		"rbac": map[string]any{"serviceAccountTokenNames": []string{"aztenant-provisioner"}},
	}
}

// The chart installs on a real kube-apiserver (which validates every object,
// the CRDs' schemas and the Deployment against the restricted Pod Security
// profile), its RBAC grants what the operator needs and no more, an upgrade
// that drops kinds keeps their CRDs, and an uninstall keeps every CRD and the
// users' objects.
func TestInstallUpgradeUninstall(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	c := env.Client
	kube := func(args ...string) []string {
		return append(args, "--namespace", namespace, "--kubeconfig", env.KubeconfigPath)
	}
	chart := chartDir(t)

	// testenv.WithoutCRDs (TestMain): the cluster starts without them, as a
	// first install would.
	mustCreate(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "restricted",
	}}})
	mustCreate(t, c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "emulator-ca", Namespace: namespace},
		Data: map[string]string{"ca.crt": "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"}})
	values := valuesFile(t, installValues())

	// --dry-run=server: the API server is asked, nothing is created.
	out, errOut, err := helm(t, kube(append([]string{"install", release, chart, "--dry-run=server"}, values...)...)...)
	if err != nil {
		t.Fatalf("helm install --dry-run=server: %v\n%s%s", err, out, errOut)
	}
	if dry := parseManifest(t, manifestOf(out)); len(dry.ofKind("Deployment")) != 1 || len(dry.ofKind("CustomResourceDefinition")) != 0 {
		t.Fatalf("dry run rendered %d Deployments and %d CRDs", len(dry.ofKind("Deployment")), len(dry.ofKind("CustomResourceDefinition")))
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: fullname}, &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the dry run created the Deployment (get: %v)", err)
	}

	// The install.
	out, errOut, err = helm(t, kube(append([]string{"install", release, chart, "--wait=false"}, values...)...)...)
	if err != nil {
		t.Fatalf("helm install: %v\n%s%s", err, out, errOut)
	}
	if strings.Contains(errOut, "PodSecurity") {
		t.Errorf("the API server warned about Pod Security:\n%s", errOut)
	}
	for _, want := range []string{"STATUS: deployed", "Onboard a team namespace", "kind: Identity", "ServiceAccounts named: aztenant-provisioner"} {
		if !strings.Contains(out, want) {
			t.Errorf("helm install output lacks %q:\n%s", want, out)
		}
	}

	installed := getManifest(t, kube)
	checkExists(t, c, installed)

	// The operator applies the CRDs at start, as the rendered Deployment
	// says (--crd-pattern, --crd-management), with its ServiceAccount's
	// token as its only credential: the chart's RBAC and CRD guard allow it.
	var d appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: fullname}, &d); err != nil {
		t.Fatal(err)
	}
	asSA := operatorClient(t, env.Config)
	res := installCRDs(t, asSA, &d)
	if len(res.Created) != len(crdIndex(t)) {
		t.Fatalf("the operator created %d CRDs, want the %d of the index", len(res.Created), len(crdIndex(t)))
	}
	firstCRDs := res.Created

	t.Run("the operator may create and patch only aztenant CRDs", func(t *testing.T) {
		foreign := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}}},
		}
		// The guard is loaded by the API server through an informer.
		var err error
		_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			err = asSA.Create(ctx, foreign.DeepCopy(), client.DryRunAll)
			return err != nil, nil
		})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "only install CRDs of the aztenant.io groups") {
			t.Fatalf("the operator creating a CRD of group example.com: want the chart's guard to refuse, got %v", err)
		}
		mustCreate(t, c, foreign.DeepCopy())
		taken := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: foreign.Name}, taken); err != nil {
			t.Fatal(err)
		}
		taken.Labels = map[string]string{"taken": "yes"}
		if err := asSA.Update(ctx, taken); !apierrors.IsForbidden(err) {
			t.Errorf("the operator updating CRD widgets.example.com: want forbidden, got %v", err)
		}
		if err := asSA.Delete(ctx, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "tenants.tenancy.aztenant.io"}}); !apierrors.IsForbidden(err) {
			t.Errorf("the operator deleting a CRD: want forbidden, got %v", err)
		}
	})
	t.Run("deployment passes the restricted Pod Security profile", func(t *testing.T) {
		var d appsv1.Deployment
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: fullname}, &d); err != nil {
			t.Fatal(err)
		}
		if w := podSecurityWarnings(t, env.Config, d.DeepCopy()); len(w) != 0 {
			t.Errorf("restricted profile warnings for the chart's Deployment: %q", w)
		}
		// Control: the same Deployment made privileged is warned about, so the
		// check above is live.
		bad := d.DeepCopy()
		bad.Spec.Template.Spec.Containers[0].SecurityContext.Privileged = ptr.To(true)
		bad.Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
		if w := podSecurityWarnings(t, env.Config, bad); len(w) == 0 {
			t.Error("no Pod Security warning for a privileged Deployment: the check is not live")
		}
	})

	t.Run("the provisioner accounts are reserved for the chart's operator", func(t *testing.T) {
		mustCreate(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "reserved"}})
		mustCreate(t, c, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "aztenant-provisioner", Namespace: "reserved"}})
		tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"api://AzureADTokenExchange"}}}
		// The API server loads the chart's policies through an informer.
		var err error
		_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err = kubernetes.NewForConfigOrDie(env.Config).CoreV1().ServiceAccounts("reserved").CreateToken(ctx, "aztenant-provisioner", tr, metav1.CreateOptions{})
			return err != nil, nil
		})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "reserved for the aztenant operator") {
			t.Fatalf("a cluster admin's token request for the provisioner account: want the chart's refusal, got %v", err)
		}
		asOperator := rest.CopyConfig(env.Config)
		asOperator.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + namespace + ":" + fullname}
		if _, err := kubernetes.NewForConfigOrDie(asOperator).CoreV1().ServiceAccounts("reserved").CreateToken(ctx, "aztenant-provisioner", tr, metav1.CreateOptions{}); err != nil {
			t.Errorf("the chart's operator ServiceAccount (its ClusterRole and the policies' parameter) cannot request the token: %v", err)
		}
	})

	t.Run("installed CRDs validate users' objects", func(t *testing.T) {
		mustCreate(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}})
		mustCreate(t, c, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: "team-a", Annotations: map[string]string{
			"azure.workload.identity/client-id": "eeeeeeee-0000-0000-0000-000000000001", "azure.workload.identity/tenant-id": "72f988bf-86f1-41af-91ab-2d7cd011db47",
		}}})
		mustCreate(t, c, &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team-a"},
			Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "azure", SubscriptionID: "00000000-0000-0000-0000-0000000000cc"}})
		mustCreate(t, c, &tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "team-a"},
			Spec: tenancyv1alpha1.TenantSpec{Namespaces: []string{"team-a"}, Subscriptions: []string{"00000000-0000-0000-0000-0000000000cc"}, ResourceGroups: []string{"team-a-*"}}})
		// The CRD's CEL rule is in force.
		err := c.Create(ctx, &tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "nobody"},
			Spec: tenancyv1alpha1.TenantSpec{Subscriptions: []string{"00000000-0000-0000-0000-0000000000cc"}, ResourceGroups: []string{"*"}}})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "select namespaces") {
			t.Errorf("a Tenant selecting no namespace: %v, want the CRD's validation error", err)
		}
	})

	t.Run("RBAC grants the operator what it needs and no more", func(t *testing.T) {
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			t.Fatal(err)
		}
		user := "system:serviceaccount:" + namespace + ":" + fullname
		for _, tc := range []struct {
			attrs authorizationv1.ResourceAttributes
			want  bool
		}{
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "create", Resource: "serviceaccounts", Subresource: "token", Name: "aztenant-provisioner"}, true},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "create", Resource: "serviceaccounts", Subresource: "token", Name: "default"}, false},
			{authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: "create", Resource: "serviceaccounts", Subresource: "token", Name: "admin"}, false},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "list", Group: "identity.aztenant.io", Resource: "identities"}, true},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "update", Group: "resources.aztenant.io", Resource: "resourcegroups", Subresource: "status"}, true},
			{authorizationv1.ResourceAttributes{Verb: "watch", Group: "tenancy.aztenant.io", Resource: "tenants"}, true},
			{authorizationv1.ResourceAttributes{Verb: "delete", Group: "tenancy.aztenant.io", Resource: "tenants"}, false},
			{authorizationv1.ResourceAttributes{Namespace: namespace, Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Name: "aztenant-operator"}, true},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "update", Group: "coordination.k8s.io", Resource: "leases"}, false},
			{authorizationv1.ResourceAttributes{Namespace: namespace, Verb: "create", Resource: "events"}, true},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "delete", Resource: "secrets"}, false},
			{authorizationv1.ResourceAttributes{Verb: "create", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, true},
			{authorizationv1.ResourceAttributes{Verb: "update", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "tenants.tenancy.aztenant.io"}, true},
			{authorizationv1.ResourceAttributes{Verb: "update", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "widgets.example.com"}, false},
			{authorizationv1.ResourceAttributes{Verb: "patch", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "tenants.tenancy.aztenant.io"}, false},
			{authorizationv1.ResourceAttributes{Verb: "delete", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "tenants.tenancy.aztenant.io"}, false},
		} {
			sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}, ResourceAttributes: &tc.attrs,
			}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sar.Status.Allowed != tc.want {
				t.Errorf("%s %s/%s %s.%s %q: allowed %t, want %t (%s)", tc.attrs.Verb, tc.attrs.Resource, tc.attrs.Subresource,
					tc.attrs.Namespace, tc.attrs.Group, tc.attrs.Name, sar.Status.Allowed, tc.want, sar.Status.Reason)
			}
		}
	})

	t.Run("namespace editors may declare Azure resources but not pick an identity", func(t *testing.T) {
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			t.Fatal(err)
		}
		// Aggregation into the default edit role needs kube-controller-manager,
		// which this control plane does not run: bind the chart's roles
		// directly, as the aggregation would.
		for _, role := range []string{fullname + "-edit", fullname + "-view"} {
			mustCreate(t, c, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role, Namespace: "team-a"},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "dev-a", APIGroup: rbacv1.GroupName}},
				RoleRef:  rbacv1.RoleRef{Kind: "ClusterRole", Name: role, APIGroup: rbacv1.GroupName}})
		}
		for _, tc := range []struct {
			attrs authorizationv1.ResourceAttributes
			want  bool
		}{
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "create", Group: "resources.aztenant.io", Resource: "resourcegroups"}, true},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "delete", Group: "storage.aztenant.io", Resource: "storageaccounts"}, true},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "get", Group: "identity.aztenant.io", Resource: "identities"}, true},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "list", Group: "containerservice.aztenant.io", Resource: "managedclusters"}, true},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "create", Group: "identity.aztenant.io", Resource: "identities"}, false},
			{authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "update", Group: "resources.aztenant.io", Resource: "resourcegroups", Subresource: "status"}, false},
			{authorizationv1.ResourceAttributes{Namespace: "team-b", Verb: "create", Group: "resources.aztenant.io", Resource: "resourcegroups"}, false},
			{authorizationv1.ResourceAttributes{Verb: "create", Group: "tenancy.aztenant.io", Resource: "tenants"}, false},
		} {
			// The authorizer sees the new RoleBindings through an informer:
			// an allowed case is polled for, and the refused ones come after
			// the first of those.
			var sar *authorizationv1.SubjectAccessReview
			err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				var err error
				sar, err = cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: "dev-a", Groups: []string{"system:authenticated"}, ResourceAttributes: &tc.attrs,
				}}, metav1.CreateOptions{})
				return err != nil || sar.Status.Allowed || !tc.want, err
			})
			if sar == nil {
				t.Fatal(err)
			}
			if sar.Status.Allowed != tc.want {
				t.Errorf("dev-a %s %s/%s in %q (%s): allowed %t, want %t", tc.attrs.Verb, tc.attrs.Resource, tc.attrs.Subresource,
					tc.attrs.Namespace, tc.attrs.Group, sar.Status.Allowed, tc.want)
			}
		}
	})

	// An upgrade whose pattern drops kinds: the operator, restarted, applies
	// nothing and deletes nothing (no delete right either), and may patch
	// only the kinds still selected.
	out, errOut, err = helm(t, kube("upgrade", release, chart, "--wait=false", "--reuse-values", "--set", "crds.pattern=resources.aztenant.io/*")...)
	if err != nil {
		t.Fatalf("helm upgrade: %v\n%s%s", err, out, errOut)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: fullname}, &d); err != nil {
		t.Fatal(err)
	}
	if res := installCRDs(t, asSA, &d); len(res.Created)+len(res.Updated) != 0 || len(res.Unchanged) != 4 {
		t.Errorf("the operator after the upgrade: %+v, want the 4 selected CRDs unchanged", res)
	}
	if got := crdUpdateNames(t, getManifest(t, kube)); strings.Join(got, ",") != "identities.identity.aztenant.io,plans.plan.aztenant.io,resourcegroups.resources.aztenant.io,tenants.tenancy.aztenant.io" {
		t.Errorf("the upgraded operator may update %q", got)
	}
	checkCRDs(t, c, firstCRDs)

	// The uninstall removes the operator and keeps every CRD and the users' objects.
	out, errOut, err = helm(t, kube("uninstall", release)...)
	if err != nil {
		t.Fatalf("helm uninstall: %v\n%s%s", err, out, errOut)
	}
	for _, o := range installed {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(o.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetName()}, u); !apierrors.IsNotFound(err) {
			t.Errorf("%s %s/%s survived the uninstall (get: %v)", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
	checkCRDs(t, c, firstCRDs)
	if err := c.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "default"}, &identityv1alpha1.Identity{}); err != nil {
		t.Errorf("the team's Identity after uninstall: %v", err)
	}
	if out, _, err := helm(t, kube("list", "--all", "--short")...); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("releases left after uninstall: %q (%v)", out, err)
	}
}

// manifestOf cuts the MANIFEST section out of `helm install --dry-run` output.
func manifestOf(out string) string {
	_, after, ok := strings.Cut(out, "MANIFEST:")
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, "\nNOTES:")
	return before
}

func getManifest(t *testing.T, kube func(...string) []string) manifest {
	t.Helper()
	out, errOut, err := helm(t, kube("get", "manifest", release)...)
	if err != nil {
		t.Fatalf("helm get manifest: %v\n%s", err, errOut)
	}
	return parseManifest(t, out)
}

// checkExists checks that every object of m is in the cluster and owned by the release.
func checkExists(t *testing.T, c client.Client, m manifest) {
	t.Helper()
	if len(m) == 0 {
		t.Fatal("empty manifest")
	}
	for _, o := range m {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(o.GroupVersionKind())
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetName()}, u); err != nil {
			t.Errorf("%s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			continue
		}
		if u.GetAnnotations()["meta.helm.sh/release-name"] != release || u.GetLabels()["app.kubernetes.io/managed-by"] != "Helm" {
			t.Errorf("%s %s is not owned by the release: labels %v annotations %v", o.GetKind(), o.GetName(), u.GetLabels(), u.GetAnnotations())
		}
	}
}

// checkCRDs checks that every named CRD is installed.
func checkCRDs(t *testing.T, c client.Client, names []string) {
	t.Helper()
	for _, n := range names {
		if err := c.Get(t.Context(), client.ObjectKey{Name: n}, &apiextensionsv1.CustomResourceDefinition{}); err != nil {
			t.Errorf("CRD %s: %v", n, err)
		}
	}
}

// operatorClient authenticates as the chart's ServiceAccount with a token
// the API server issues for it (TokenRequest), as the pod's would be.
func operatorClient(t *testing.T, admin *rest.Config) client.Client {
	t.Helper()
	tok, err := kubernetes.NewForConfigOrDie(admin).CoreV1().ServiceAccounts(namespace).CreateToken(t.Context(), fullname,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(admin)
	cfg.BearerToken = tok.Status.Token
	c, err := client.New(cfg, client.Options{Scheme: testenv.Get(t).Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// installCRDs does what the operator does at start with the Deployment's
// --crd-pattern and --crd-management=auto.
func installCRDs(t *testing.T, c client.Client, d *appsv1.Deployment) crdinstall.Result {
	t.Helper()
	a := args(t, d)
	if m := flagValue(t, a, "crd-management"); m != "auto" {
		t.Fatalf("--crd-management=%s", m)
	}
	pattern, err := crdinstall.ParsePattern(flagValue(t, a, "crd-pattern"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := operator.InstallCRDs(t.Context(), c, pattern, 2*time.Minute)
	if err != nil {
		t.Fatalf("the operator's CRD install as its ServiceAccount: %v", err)
	}
	return res
}

func mustCreate(t *testing.T, c client.Client, o client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), o); err != nil {
		t.Fatalf("create %T %s: %v", o, o.GetName(), err)
	}
}

// warnings collects the API server's warning headers.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// podSecurityWarnings creates d in a server-side dry run under a new name and
// returns the Pod Security warnings the API server answers with.
func podSecurityWarnings(t *testing.T, cfg *rest.Config, d *appsv1.Deployment) []string {
	t.Helper()
	w := &warnings{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = w
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d.ObjectMeta = metav1.ObjectMeta{Name: d.Name + "-dry-run", Namespace: d.Namespace, Labels: d.Labels}
	d.Status = appsv1.DeploymentStatus{}
	if _, err := cs.AppsV1().Deployments(d.Namespace).Create(t.Context(), d, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, s := range w.list {
		if strings.Contains(s, "PodSecurity") {
			out = append(out, s)
		}
	}
	return out
}
