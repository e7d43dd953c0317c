package attacks_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
)

// reservedMessage is what admission answers for the provisioner account.
const reservedMessage = "is reserved for the aztenant operator"

// developer is an account bound to Kubernetes' own aggregated `edit` role in
// its namespace, as docs/concepts.md tells platform teams to grant developers. It
// authenticates with a token of its own (a ServiceAccount "developer"), so it
// can impersonate in turn, as edit allows.
type developer struct {
	user string
	cs   kubernetes.Interface
	c    client.Client
	cfg  *rest.Config
}

func newDeveloper(t *testing.T, a *attack, ns string) *developer {
	t.Helper()
	ctx := t.Context()
	d := &developer{user: "system:serviceaccount:" + ns + ":developer"}
	a.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "developer", Namespace: ns}})
	a.Create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "developers", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "developer", Namespace: ns}}})
	// kube-controller-manager fills `edit` from the aggregated roles; wait
	// until it holds the rights the attacks use, so a refusal below is the
	// reservation's and not a missing RBAC rule.
	admin := kubernetes.NewForConfigOrDie(a.Env.Config)
	stacktest.Until(t, "the aggregated edit role grants serviceaccounts/token and impersonation", func() bool {
		r, err := admin.RbacV1().ClusterRoles().Get(ctx, "edit", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var token, impersonate bool
		for _, rule := range r.Rules {
			for _, res := range rule.Resources {
				token = token || res == "serviceaccounts/token"
				impersonate = impersonate || (res == "serviceaccounts" && slices.Contains(rule.Verbs, "impersonate"))
			}
		}
		return token && impersonate
	})
	tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "developer",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.cfg = &rest.Config{Host: a.Env.Config.Host, BearerToken: tr.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: a.Env.CAPEM}}
	d.cs = kubernetes.NewForConfigOrDie(d.cfg)
	if d.c, err = client.New(d.cfg, client.Options{Scheme: a.Env.Scheme}); err != nil {
		t.Fatal(err)
	}
	return d
}

// refused checks that a write was refused by the reservation's admission
// policy (not by RBAC or validation), naming the account.
func refused(t *testing.T, what string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: admitted", what)
	case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), reservedMessage) || !strings.Contains(err.Error(), identity.ProvisionerServiceAccount):
		t.Errorf("%s: want admission's refusal naming %s, got %v", what, identity.ProvisionerServiceAccount, err)
	}
}

func tokenRequest() *authenticationv1.TokenRequest {
	return &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences: []string{identity.TokenAudience}, ExpirationSeconds: ptr.To[int64](3600)}}
}

func podSpec(sa string) corev1.PodSpec {
	return corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "az", Image: "mcr.microsoft.com/azure-cli"}}}
}

func podTemplate(sa string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "az"}}, Spec: podSpec(sa)}
}

// A namespace editor tries every way Kubernetes gives it to obtain a token
// of the provisioner account, whose Azure identity would then act without
// the operator: each is refused by admission, and Entra issues the
// namespace's identity no token the operator did not ask for.
func TestAttack_ProvisionerAccountTokens(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "prov")
	ctx := t.Context()
	ns, sa := a.attacker, identity.ProvisionerServiceAccount
	dev := newDeveloper(t, a, ns)
	exchangesBefore := a.Parts.Broker.Credentials().Exchanges()

	t.Run("TokenRequest", func(t *testing.T) {
		tr, err := dev.cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, tokenRequest(), metav1.CreateOptions{})
		refused(t, "kubectl create token "+sa, err)
		spend(ctx, a, tr)
	})
	t.Run("TokenRequestByClusterAdmin", func(t *testing.T) {
		admin := kubernetes.NewForConfigOrDie(a.Env.Config)
		tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, tokenRequest(), metav1.CreateOptions{})
		refused(t, "a cluster admin's token request", err)
		spend(ctx, a, tr)
	})
	t.Run("TokenRequestImpersonatingTheAccount", func(t *testing.T) {
		// A namespace admin could give the account rights of its own; then
		// an editor (edit includes impersonating ServiceAccounts) asks as it.
		a.Create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "provisioner-edits", Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}}})
		// RBAC must allow it first, so that the refusal is admission's: the
		// authorizer learns of a new binding a moment later (under load, a
		// second or more).
		admin := kubernetes.NewForConfigOrDie(a.Env.Config)
		stacktest.Until(t, "RBAC lets the account request its own token", func() bool {
			r, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: "system:serviceaccount:" + ns + ":" + sa, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "create", Resource: "serviceaccounts", Subresource: "token", Name: sa},
			}}, metav1.CreateOptions{})
			return err == nil && r.Status.Allowed
		})
		impersonating := rest.CopyConfig(dev.cfg)
		impersonating.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + sa}
		cs := kubernetes.NewForConfigOrDie(impersonating)
		tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, tokenRequest(), metav1.CreateOptions{})
		refused(t, "a token request as the account itself", err)
		spend(ctx, a, tr)
	})
	t.Run("Pod", func(t *testing.T) {
		err := dev.c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "az", Namespace: ns}, Spec: podSpec(sa)})
		refused(t, "a pod running as the account", err)
		legacy := podSpec("")
		legacy.DeprecatedServiceAccount = sa
		err = dev.c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "az-legacy", Namespace: ns}, Spec: legacy})
		refused(t, "a pod naming the account in the deprecated spec.serviceAccount", err)
	})
	t.Run("Deployment", func(t *testing.T) {
		err := dev.c.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "az", Namespace: ns},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "az"}}, Template: podTemplate(sa)}})
		refused(t, "a Deployment running as the account", err)
		// Nor by changing an admitted one.
		ok := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "az-app", Namespace: ns},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "az"}}, Template: podTemplate("app")}}
		if err := dev.c.Create(ctx, ok); err != nil {
			t.Fatalf("a Deployment with its own ServiceAccount: %v", err)
		}
		ok.Spec.Template.Spec.ServiceAccountName = sa
		refused(t, "a Deployment changed to run as the account", dev.c.Update(ctx, ok))
	})
	t.Run("CronJob", func(t *testing.T) {
		tmpl := podTemplate(sa)
		tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
		err := dev.c.Create(ctx, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "az", Namespace: ns},
			Spec: batchv1.CronJobSpec{Schedule: "* * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tmpl}}}})
		refused(t, "a CronJob running as the account", err)
	})
	t.Run("TokenSecret", func(t *testing.T) {
		err := dev.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "az-token", Namespace: ns,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: sa}}, Type: corev1.SecretTypeServiceAccountToken})
		refused(t, "a service-account-token Secret for the account", err)
	})
	t.Run("WorkloadIdentityAnnotations", func(t *testing.T) {
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+identity.AnnotationClientID+`":"`+a.ClientID[a.victim]+`"}}}`))
		err := dev.c.Patch(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}}, patch)
		refused(t, "the account's client-id annotation pointed at the victim", err)
		// Other changes to the account stay the namespace's business.
		label := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"}}}`))
		if err := dev.c.Patch(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}}, label); err != nil {
			t.Errorf("a label on the account: %v", err)
		}
	})
	t.Run("ExchangeAnotherAccountsToken", func(t *testing.T) {
		// What an editor can mint, for an account of its own, buys nothing:
		// the namespace's identity trusts only the provisioner account.
		if err := dev.c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		tr, err := dev.cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "azure", tokenRequest(), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("a token for an ordinary account: %v", err)
		}
		err = exchange(ctx, a, a.ClientID[ns], tr.Status.Token)
		var afe *azidentity.AuthenticationFailedError
		if !errors.As(err, &afe) || !strings.Contains(afe.Error(), "AADSTS70021") {
			t.Errorf("exchanging another account's token for the namespace's identity: want AADSTS70021, got %v", err)
		}
	})

	// Entra's side: every token it issued the namespace's identity since the
	// attack began was for the provisioner account, and the operator asked
	// for each of them.
	var issued int64
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "entra", ClientID: a.ClientID[ns]}) {
		if e.Status != 200 {
			continue
		}
		issued++
		if e.Subject != "system:serviceaccount:"+ns+":"+sa {
			t.Errorf("Entra issued the namespace's identity a token for %s", e.Subject)
		}
	}
	if made := a.Parts.Broker.Credentials().Exchanges() - exchangesBefore; issued > made {
		t.Errorf("Entra issued %d tokens for the namespace's identity, the operator asked for %d", issued, made)
	}
	a.contained(t)
	a.noWrite(t)
}

// spend exchanges a token that should never have been issued, as the attacker
// would, so Entra's audit shows what it bought.
func spend(ctx context.Context, a *attack, tr *authenticationv1.TokenRequest) {
	if tr != nil && tr.Status.Token != "" {
		_ = exchange(ctx, a, a.ClientID[a.attacker], tr.Status.Token)
	}
}

// exchange presents a ServiceAccount token to the emulator's Entra ID as a
// client assertion for clientID, as azidentity does for workload identity.
func exchange(ctx context.Context, a *attack, clientID, token string) error {
	opts, err := a.Cloud.ClientOptions()
	if err != nil {
		return err
	}
	cred, err := azidentity.NewClientAssertionCredential(stacktest.TenantID, clientID,
		func(context.Context) (string, error) { return token, nil },
		&azidentity.ClientAssertionCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		return err
	}
	_, err = cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{a.Cloud.ARMScope()}})
	return err
}
