package gatekeeper

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/policy"
)

const (
	reservedNamespace  = "reserved"
	reservedAccount    = "aztenant-provisioner"
	reservedConstraint = "reserved-provisioner-e2e"
	// developer is a user who is not the operator; impersonated in
	// system:masters, so not even a cluster admin gets through.
	developer = "dev@reserved.example.com"
	clientID  = "azure.workload.identity/client-id"
)

// reservedDenial is the start of Gatekeeper's denial for this test's
// constraint: the webhook, the constraint, the template's message.
func reservedDenial(rest string) string {
	return `admission webhook "validation.gatekeeper.sh" denied the request: [` + reservedConstraint + `] ServiceAccount ` +
		reservedNamespace + "/" + reservedAccount + " is reserved for the aztenant operator: " + rest
}

// With the real Gatekeeper as the only admission (no reservation policies),
// the reservedserviceaccount template and a constraint naming the test's
// operator user: a user who is not the operator gets no token for the
// provisioner account in any of the four ways, each denied with the
// template's message, while the operator's TokenRequest is admitted.
func checkReservedServiceAccount(t *testing.T, env *testenv.Env) {
	ctx := t.Context()
	var vaps admissionregistrationv1.ValidatingAdmissionPolicyList
	if err := env.Client.List(ctx, &vaps); err != nil {
		t.Fatal(err)
	}
	if len(vaps.Items) > 0 {
		t.Fatalf("%d ValidatingAdmissionPolicies (%s...) would judge before Gatekeeper", len(vaps.Items), vaps.Items[0].Name)
	}
	createNamespace(t, env, reservedNamespace)

	// This test's constraint replaces the sample one, which names the
	// chart's operator instead of this control plane's.
	sample := &unstructured.Unstructured{}
	sample.SetAPIVersion("constraints.gatekeeper.sh/v1beta1")
	sample.SetKind("AztenantReservedServiceAccount")
	sample.SetName("reserved-provisioner")
	if err := env.Client.Delete(ctx, sample); err != nil {
		t.Fatalf("delete the sample constraint: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		objs, err := policy.SampleConstraints()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range objs {
			if c.GetKind() == sample.GetKind() && c.GetName() == sample.GetName() {
				if err := env.Client.Create(ctx, c); err != nil {
					t.Errorf("restore the sample constraint: %v", err)
				}
			}
		}
	})
	constraint := `apiVersion: constraints.gatekeeper.sh/v1beta1
kind: AztenantReservedServiceAccount
metadata:
  name: ` + reservedConstraint + `
spec:
  match:
    kinds:
      - apiGroups: [""]
        kinds: [Pod, ServiceAccount, Secret]
      - apiGroups: [apps]
        kinds: [Deployment]
      - apiGroups: [authentication.k8s.io]
        kinds: [TokenRequest]
  parameters:
    operatorUsernames: ["` + controlplane.OperatorUser + `"]
`
	start := time.Now()
	var applyErr error
	var applyOut string
	if wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, enforceWithin, true, func(context.Context) (bool, error) {
		_, applyOut, applyErr = kubectl(t, env, constraint, "apply", "-f", "-")
		return applyErr == nil, nil
	}) != nil {
		t.Fatalf("constraint not accepted: %v\n%s", applyErr, applyOut)
	}

	operator := kubernetes.NewForConfigOrDie(env.OperatorConfig)
	opClient, err := client.New(env.OperatorConfig, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	// Bare, which anyone may create; the operator sets its identity below.
	for _, name := range []string{reservedAccount, "web"} {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: reservedNamespace}}
		if err := opClient.Create(ctx, sa); err != nil {
			t.Fatalf("the operator creates ServiceAccount %s: %v", name, err)
		}
	}
	operatorToken := func() error {
		tr, err := operator.CoreV1().ServiceAccounts(reservedNamespace).CreateToken(ctx, reservedAccount, tokenRequest(), metav1.CreateOptions{})
		if err == nil && tr.Status.Token == "" {
			t.Fatal("the operator's TokenRequest was admitted without a token")
		}
		return err
	}
	createToken := []string{"create", "token", reservedAccount, "-n", reservedNamespace, "--audience", "api://AzureADTokenExchange",
		"--as", developer, "--as-group", "system:masters"}
	wantToken := reservedDenial(developer + " may not request a token for it (the token would act as the namespace's Azure identity " +
		"outside the operator's Tenant bounds and policy); apps use their own ServiceAccount and workload identity")
	// Enforced when only this constraint judges: the developer is denied
	// with its name, the operator (whom the sample constraint denied) admitted.
	var stdout, stderr string
	if wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, enforceWithin-time.Since(start), true, func(context.Context) (bool, error) {
		stdout, stderr, err = kubectl(t, env, "", createToken...)
		return err != nil && strings.Contains(stderr, wantToken) && operatorToken() == nil, nil
	}) != nil {
		t.Fatalf("the constraint was not the only one enforced within %v: kubectl create token as %s: %v\n%s%s\nthe operator's: %v",
			enforceWithin, developer, err, stdout, stderr, operatorToken())
	}
	t.Logf("kubectl create token as %s: %s", developer, strings.TrimSpace(stderr))

	// The operator gives the account its identity, as onboarding does.
	sa := &corev1.ServiceAccount{}
	if err := opClient.Get(ctx, client.ObjectKey{Namespace: reservedNamespace, Name: reservedAccount}, sa); err != nil {
		t.Fatal(err)
	}
	sa.Annotations = map[string]string{clientID: "11111111-2222-3333-4444-555555555555"}
	if err := opClient.Update(ctx, sa); err != nil {
		t.Fatalf("the operator sets %s: %v", clientID, err)
	}

	cfg, dev := as(t, env, developer)
	devSet := kubernetes.NewForConfigOrDie(cfg)
	podSpec := corev1.PodSpec{ServiceAccountName: reservedAccount, Containers: []corev1.Container{{Name: "az", Image: "mcr.microsoft.com/azure-cli"}}}
	labels := map[string]string{"app": "az"}
	retargeted := sa.DeepCopy()
	retargeted.Annotations[clientID] = "99999999-8888-7777-6666-555555555555"

	for _, c := range []struct {
		name string
		obj  client.Object
		do   func() error
		want string
	}{
		{"Pod", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "az", Namespace: reservedNamespace}, Spec: podSpec}, nil,
			reservedDenial("Pod az may not run pods as it (their token would act as the namespace's Azure identity); give the workload its own ServiceAccount and workload identity")},
		{"Deployment", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "deployer", Namespace: reservedNamespace},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec}}}, nil,
			reservedDenial("Deployment deployer may not run pods as it (their token would act as the namespace's Azure identity); give the workload its own ServiceAccount and workload identity")},
		{"service-account-token Secret", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "provisioner-token", Namespace: reservedNamespace,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: reservedAccount}}, Type: corev1.SecretTypeServiceAccountToken}, nil,
			reservedDenial("Secret provisioner-token may not be a service-account-token Secret for it")},
		{"client-id annotation changed", nil, func() error { return dev.Update(ctx, retargeted.DeepCopy()) },
			reservedDenial(developer + " may not set or change its workload-identity annotations (" + clientID + ")")},
		{"TokenRequest (client-go)", nil, func() error {
			_, err := devSet.CoreV1().ServiceAccounts(reservedNamespace).CreateToken(ctx, reservedAccount, tokenRequest(), metav1.CreateOptions{})
			return err
		}, wantToken},
	} {
		t.Run(c.name, func(t *testing.T) {
			do := c.do
			if do == nil {
				do = func() error { return dev.Create(ctx, c.obj) }
			}
			err := do()
			switch {
			case err == nil:
				t.Fatalf("admitted for %s", developer)
			case !apierrors.IsForbidden(err):
				t.Fatalf("want Gatekeeper's 403, got %v", err)
			case !strings.Contains(err.Error(), c.want):
				t.Errorf("denial is not the template's:\n got  %v\n want %s", err, c.want)
			}
			if c.obj != nil {
				if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.obj), c.obj); !apierrors.IsNotFound(err) {
					t.Errorf("the denied object was stored anyway (get: %v)", err)
				}
			}
		})
	}

	stored := &corev1.ServiceAccount{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(sa), stored); err != nil || stored.Annotations[clientID] != sa.Annotations[clientID] {
		t.Errorf("the account's client ID changed to %q (get: %v)", stored.Annotations[clientID], err)
	}
	if err := operatorToken(); err != nil {
		t.Errorf("the operator's TokenRequest: %v", err)
	}
	// Only the reserved account is guarded: the app's own is not.
	if _, err := devSet.CoreV1().ServiceAccounts(reservedNamespace).CreateToken(ctx, "web", tokenRequest(), metav1.CreateOptions{}); err != nil {
		t.Errorf("%s's TokenRequest for its app's ServiceAccount: %v", developer, err)
	}
}

func tokenRequest() *authenticationv1.TokenRequest {
	return &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences: []string{"api://AzureADTokenExchange"}, ExpirationSeconds: ptr.To[int64](3600)}}
}
