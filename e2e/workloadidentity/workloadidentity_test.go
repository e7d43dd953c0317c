package workloadidentity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
)

// runs numbers the test's namespaces: each run (-count) gets a fresh one, as
// the package's API server outlives a run and the emulator does not.
var runs atomic.Int32

const (
	// The app's own registration, separate from the namespace's provisioning one.
	appClientID = "aaaaaaaa-0000-4000-8000-0000000000a1"
	appObjectID = "aaaaaaaa-0000-4000-8000-0000000000b1"
	appAccount  = "app"
	// dataRole is a data-plane role: no ARM write of any kind.
	dataRole = "Storage Blob Data Reader"

	// What the webhook injects (azure-workload-identity's public conventions).
	tokenVolume = "azure-identity-token"
	tokenDir    = "/var/run/secrets/azure/tokens"
)

// An app of the namespace gets an Azure identity of its own the standard way:
// the real azure-workload-identity webhook mutates its pod, its token (minted
// as the kubelet would) is exchanged by the unchanged SDK for the app's
// principal, which reaches only what its data-plane role allows; the token
// does not open the namespace's provisioning identity, and no pod may ask
// for the provisioner account.
func TestAppWorkloadIdentity(t *testing.T) {
	bin := webhookBinary(t)
	ns := fmt.Sprintf("wi%d", runs.Add(1))
	s := stacktest.New(t, ns)
	ctx := t.Context()
	cs := kubernetes.NewForConfigOrDie(s.Env.Config)
	subject := "system:serviceaccount:" + ns + ":" + appAccount

	// The namespace's resource group, made by the operator with the
	// provisioning identity; the platform gives the app a data-plane role on it.
	rg := stacktest.ResourceGroup(ns, ns+"-data", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if err := s.Emu.Seed(emulator.Seed{Principals: []emulator.Principal{{
		ClientID: appClientID, ObjectID: appObjectID, TenantID: stacktest.TenantID, DisplayName: ns + "-app",
		FederatedCredentials: []emulator.FederatedCredential{{Name: "app", Issuer: s.Env.IssuerURL, Subject: subject, Audiences: []string{identity.TokenAudience}}},
		Roles:                []emulator.RoleAssignment{{Role: dataRole, Scope: stacktest.RGID(ns + "-data")}},
	}}}); err != nil {
		t.Fatal(err)
	}
	s.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: appAccount, Namespace: ns, Annotations: map[string]string{
		identity.AnnotationClientID: appClientID, identity.AnnotationTenantID: stacktest.TenantID,
	}}})

	startWebhook(t, s.Env, bin, stacktest.TenantID, s.Cloud.AuthorityHost, ns)
	// The API server calls the webhook once it has read the configuration.
	start := time.Now()
	testenv.Eventually(t, within, "a dry-run pod is mutated", func() (bool, string) {
		p := appPod(ns, "probe", appAccount)
		if err := s.Client.Create(ctx, p, client.DryRunAll); err != nil {
			return false, err.Error()
		}
		return envOf(p.Spec.Containers[0])["AZURE_CLIENT_ID"] != "", "not mutated"
	})
	t.Logf("webhook configuration -> first mutation: %v", time.Since(start).Round(10*time.Millisecond))

	// The pod as the API server stored it, mutated by the webhook.
	pod := appPod(ns, "app", appAccount)
	if err := s.Client.Create(ctx, pod); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	env := envOf(pod.Spec.Containers[0])
	for name, want := range map[string]string{
		"AZURE_CLIENT_ID":            appClientID,
		"AZURE_TENANT_ID":            stacktest.TenantID,
		"AZURE_AUTHORITY_HOST":       s.Cloud.AuthorityHost,
		"AZURE_FEDERATED_TOKEN_FILE": tokenDir + "/" + tokenVolume,
	} {
		if env[name] != want {
			t.Errorf("container env %s = %q, want %q", name, env[name], want)
		}
	}
	mounted := false
	for _, m := range pod.Spec.Containers[0].VolumeMounts {
		mounted = mounted || (m.Name == tokenVolume && m.MountPath == tokenDir && m.ReadOnly)
	}
	if !mounted {
		t.Errorf("no read-only mount of %s at %s: %+v", tokenVolume, tokenDir, pod.Spec.Containers[0].VolumeMounts)
	}
	proj := projectedToken(pod)
	if proj == nil {
		t.Fatalf("no projected service-account token volume %s: %+v", tokenVolume, pod.Spec.Volumes)
	}
	if proj.Audience != identity.TokenAudience || proj.ExpirationSeconds == nil || *proj.ExpirationSeconds != 3600 {
		t.Errorf("projected token: audience %q, expiration %v; want %q, 3600", proj.Audience, proj.ExpirationSeconds, identity.TokenAudience)
	}
	if t.Failed() {
		t.FailNow()
	}

	// No kubelet runs here: write the projected token as it would, bound to the pod.
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, appAccount, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences: []string{proj.Audience}, ExpirationSeconds: proj.ExpirationSeconds,
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s/%s bound to the pod: %v", ns, appAccount, err)
	}
	tokenFile := filepath.Join(t.TempDir(), tokenVolume)
	if err := os.WriteFile(tokenFile, []byte(tr.Status.Token), 0o600); err != nil {
		t.Fatal(err)
	}

	// The app, as the Azure SDK's WorkloadIdentityCredential, from what the
	// webhook injected.
	opts, err := s.Cloud.ClientOptions()
	if err != nil {
		t.Fatal(err)
	}
	opts.Cloud.ActiveDirectoryAuthorityHost = env["AZURE_AUTHORITY_HOST"]
	app, err := azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
		ClientOptions: opts, ClientID: env["AZURE_CLIENT_ID"], TenantID: env["AZURE_TENANT_ID"],
		TokenFilePath: tokenFile, DisableInstanceDiscovery: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := app.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{s.Cloud.ARMScope()}})
	if err != nil {
		t.Fatalf("the app's token exchange: %v", err)
	}
	if claims := jwtClaims(t, tok.Token); claims["oid"] != appObjectID || claims["appid"] != appClientID {
		t.Errorf("access token is for oid %v appid %v, want the app principal %s (%s)", claims["oid"], claims["appid"], appObjectID, appClientID)
	}

	// With it, no control-plane write: neither a resource group nor a storage
	// account in the group it may read blobs of.
	armOpts := &arm.ClientOptions{ClientOptions: opts, DisableRPRegistration: true}
	groups, err := armresources.NewResourceGroupsClient(stacktest.SubscriptionID, app, armOpts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = groups.CreateOrUpdate(ctx, ns+"-app", armresources.ResourceGroup{Location: to.Ptr(stacktest.Location)}, nil)
	wantAuthorizationFailed(t, "create resource group "+ns+"-app", err)
	generic, err := armresources.NewClient(stacktest.SubscriptionID, app, armOpts)
	if err != nil {
		t.Fatal(err)
	}
	saID := stacktest.RGID(ns+"-data") + "/providers/Microsoft.Storage/storageAccounts/wiappdata"
	_, err = generic.BeginCreateOrUpdateByID(ctx, saID, "2023-05-01", armresources.GenericResource{
		Location: to.Ptr(stacktest.Location), Kind: to.Ptr("StorageV2"), SKU: &armresources.SKU{Name: to.Ptr("Standard_LRS")},
	}, nil)
	wantAuthorizationFailed(t, "create storage account in "+ns+"-data", err)
	if _, err := s.Emu.Resource(stacktest.RGID(ns + "-app")); err == nil {
		t.Error("resource group " + ns + "-app exists in Azure")
	}
	if _, err := s.Emu.Resource(saID); err == nil {
		t.Error("storage account " + saID + " exists in Azure")
	}

	// The same token does not open the namespace's provisioning identity.
	prov, err := azidentity.NewClientAssertionCredential(stacktest.TenantID, s.ClientID[ns],
		func(context.Context) (string, error) { return tr.Status.Token, nil },
		&azidentity.ClientAssertionCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = prov.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{s.Cloud.ARMScope()}})
	if err == nil || !strings.Contains(err.Error(), "AADSTS70021") {
		t.Errorf("the app's token for the provisioning client ID %s: %v, want AADSTS70021", s.ClientID[ns], err)
	}
	// Entra's log: the app's account got the app's principal, and nothing else.
	var asApp, refused int
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Service: "entra"}) {
		switch {
		case e.Subject != subject:
		case e.ClientID == appClientID && e.Status == http.StatusOK && e.PrincipalID == appObjectID:
			asApp++
		case e.ClientID != appClientID && e.Status != http.StatusOK && e.ErrorCode == "AADSTS70021":
			refused++
		default:
			t.Errorf("unexpected exchange of a token of %s: client %s, status %d %s, principal %q", subject, e.ClientID, e.Status, e.ErrorCode, e.PrincipalID)
		}
	}
	if asApp == 0 || refused == 0 {
		t.Errorf("Entra's audit log has %d exchanges as the app and %d refusals for the provisioning client ID, want both", asApp, refused)
	}

	// A pod asking the webhook for the provisioner account is refused at
	// admission, by the reservation.
	err = s.Client.Create(ctx, appPod(ns, "provisioner", identity.ProvisionerServiceAccount))
	if err == nil || !strings.Contains(err.Error(), "reserved for the aztenant operator") {
		t.Errorf("pod running as %s: %v, want refused as reserved for the aztenant operator", identity.ProvisionerServiceAccount, err)
	}
}

// appPod is a pod labelled for workload identity, running as the account.
func appPod(ns, name, account string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{useLabel: "true"}},
		Spec: corev1.PodSpec{
			ServiceAccountName: account,
			Containers:         []corev1.Container{{Name: "app", Image: "registry.example/app:1"}},
		},
	}
}

func envOf(c corev1.Container) map[string]string {
	m := map[string]string{}
	for _, e := range c.Env {
		m[e.Name] = e.Value
	}
	return m
}

// projectedToken is the service-account token source of the webhook's volume.
func projectedToken(pod *corev1.Pod) *corev1.ServiceAccountTokenProjection {
	for _, v := range pod.Spec.Volumes {
		if v.Name != tokenVolume || v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.Path == tokenVolume {
				return src.ServiceAccountToken
			}
		}
	}
	return nil
}

// wantAuthorizationFailed checks that ARM refused the call with 403 AuthorizationFailed
// naming the app principal.
func wantAuthorizationFailed(t *testing.T, what string, err error) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Errorf("%s as the app: %v, want 403 AuthorizationFailed", what, err)
		return
	}
	if re.StatusCode != http.StatusForbidden || re.ErrorCode != "AuthorizationFailed" || !strings.Contains(re.Error(), appObjectID) {
		t.Errorf("%s as the app: %d %s, want 403 AuthorizationFailed naming %s:\n%v", what, re.StatusCode, re.ErrorCode, appObjectID, err)
	}
}

// jwtClaims decodes a JWT's payload without checking it.
func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := tok.UnsafeClaimsWithoutVerification(&claims); err != nil {
		t.Fatal(err)
	}
	return claims
}
