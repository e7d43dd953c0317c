package federation_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	tenantID         = "11111111-1111-4111-8111-111111111111"
	subscriptionID   = "22222222-2222-4222-8222-222222222222"
	platformClientID = "33333333-3333-4333-8333-333333333333"
	platformSecret   = "platform-s3cret"
	appClientID      = "44444444-4444-4444-8444-444444444444"
	appObjectID      = "55555555-5555-4555-8555-555555555555"

	exchangeAudience = "api://AzureADTokenExchange"
	subjectA         = "system:serviceaccount:team-a:azure"
	subjectB         = "system:serviceaccount:team-b:azure"

	// minTokenExpiry is the shortest lifetime the TokenRequest API grants.
	minTokenExpiry = int64(600)
)

// cluster is the package's real API server with namespaces team-a and team-b, each holding
// ServiceAccount "azure".
type cluster struct {
	env *testenv.Env
	cs  kubernetes.Interface
}

var (
	clusterOnce sync.Once
	theCluster  *cluster
	clusterErr  error
)

func getCluster(t *testing.T) *cluster {
	t.Helper()
	env := testenv.Get(t)
	clusterOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			clusterErr = err
			return
		}
		for _, ns := range []string{"team-a", "team-b"} {
			_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				clusterErr = err
				return
			}
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: ns}}
			if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				clusterErr = err
				return
			}
		}
		theCluster = &cluster{env: env, cs: cs}
	})
	if clusterErr != nil {
		t.Fatalf("cluster setup: %v", clusterErr)
	}
	return theCluster
}

// saToken mints a token for ServiceAccount ns/azure with the TokenRequest API.
func (c *cluster) saToken(ctx context.Context, ns, audience string) (string, error) {
	expiry := minTokenExpiry
	tr, err := c.cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "azure", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{Audiences: []string{audience}, ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("TokenRequest for %s/azure: %w", ns, err)
	}
	return tr.Status.Token, nil
}

// assertions is a getAssertion func for azidentity that mints a fresh ServiceAccount token
// at every call, as the projected-token file of a pod would provide, and counts the calls.
type assertions struct {
	c        *cluster
	ns, aud  string
	requests atomic.Int64
}

func (a *assertions) get(ctx context.Context) (string, error) {
	a.requests.Add(1)
	return a.c.saToken(ctx, a.ns, a.aud)
}

// trustAPIServer trusts the API server's issuer by URL and CA: the emulator fetches
// discovery and the JWKS itself, anonymously, like Entra ID.
func (c *cluster) trustAPIServer() emulator.TrustedIssuer {
	return emulator.TrustedIssuer{Issuer: c.env.IssuerURL, CAPEM: string(c.env.CAPEM)}
}

var signingKeyPEM = sync.OnceValue(func() string {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
})

// startEmulator runs an emulator with the tenant, the subscription, the platform principal
// (client secret, Owner on the subscription) and the given principals and trusted issuers.
func startEmulator(t *testing.T, principals []emulator.Principal, trusted ...emulator.TrustedIssuer) *emulator.Emulator {
	t.Helper()
	emu, err := emulator.New(emulator.Config{
		SigningKeyPEM: signingKeyPEM(),
		Seed: emulator.Seed{
			Tenants:       []emulator.Tenant{{ID: tenantID}},
			Subscriptions: []emulator.Subscription{{ID: subscriptionID, TenantID: tenantID}},
			Principals: append([]emulator.Principal{{
				ClientID: platformClientID, TenantID: tenantID, DisplayName: "platform", ClientSecret: platformSecret,
				Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + subscriptionID}},
			}}, principals...),
			TrustedIssuers: trusted,
		},
	})
	if err != nil {
		t.Fatalf("emulator.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := emu.Start(ctx); err != nil {
		cancel()
		t.Fatalf("emulator.Start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		emu.Close()
	})
	return emu
}

// teamA is an app registration federated with team-a/azure of the real API server.
func teamA(c *cluster, roles ...emulator.RoleAssignment) emulator.Principal {
	return emulator.Principal{
		ClientID: appClientID, ObjectID: appObjectID, TenantID: tenantID, DisplayName: "team-a",
		FederatedCredentials: []emulator.FederatedCredential{{Name: "team-a", Issuer: c.env.IssuerURL, Subject: subjectA, Audiences: []string{exchangeAudience}}},
		Roles:                roles,
	}
}

func workloadCred(t *testing.T, emu *emulator.Emulator, clientID string, getAssertion func(context.Context) (string, error)) *azidentity.ClientAssertionCredential {
	t.Helper()
	cred, err := azidentity.NewClientAssertionCredential(tenantID, clientID, getAssertion,
		&azidentity.ClientAssertionCredentialOptions{ClientOptions: emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

func platformCred(t *testing.T, emu *emulator.Emulator) azcore.TokenCredential {
	t.Helper()
	cred, err := azidentity.NewClientSecretCredential(tenantID, platformClientID, platformSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

func armOptions(emu *emulator.Emulator) *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: emu.ClientOptions(), DisableRPRegistration: true}
}

// armAudience is the ARM audience of the emulator's cloud configuration, as ARM clients use it.
func armAudience(emu *emulator.Emulator) string {
	return emu.Cloud().Services[cloud.ResourceManager].Audience
}

// armScope asks for an ARM token the way ARM clients' bearer-token policy does: with
// EnableCAE, which azidentity caches apart from non-CAE tokens.
func armScope(emu *emulator.Emulator) policy.TokenRequestOptions {
	return policy.TokenRequestOptions{Scopes: []string{armAudience(emu) + "/.default"}, EnableCAE: true}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// payload decodes a JWT's claims without verifying it.
func payload(t *testing.T, token string) map[string]any {
	t.Helper()
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatalf("JWT: %v", err)
	}
	var c map[string]any
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil {
		t.Fatalf("JWT payload: %v", err)
	}
	return c
}

func wantClaims(t *testing.T, claims map[string]any, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, _ := claims[k].(string); got != v {
			t.Errorf("access token claim %s = %q, want %q", k, got, v)
		}
	}
}

// wantRefusal checks that err is azidentity's authentication failure and that its text, as
// a user would read it, holds every want.
func wantRefusal(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("GetToken succeeded, want an error containing %q", wants)
	}
	var afe *azidentity.AuthenticationFailedError
	if !errors.As(err, &afe) {
		t.Errorf("error is %T, want *azidentity.AuthenticationFailedError", err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}

// A ServiceAccount token of the real API server, federated with an app registration, is
// exchanged for an ARM token naming that app, and the token works on ARM.
func TestExchangeAndUseOnARM(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	emu := startEmulator(t, []emulator.Principal{teamA(c, emulator.RoleAssignment{Role: "Contributor", Scope: "/subscriptions/" + subscriptionID})}, c.trustAPIServer())
	ctx := ctxT(t)

	src := &assertions{c: c, ns: "team-a", aud: exchangeAudience}
	cred := workloadCred(t, emu, appClientID, src.get)
	tok, err := cred.GetToken(ctx, armScope(emu))
	if err != nil {
		t.Fatalf("GetToken: %v", err)
	}
	claims := payload(t, tok.Token)
	wantClaims(t, claims, map[string]string{
		"oid": appObjectID, "appid": appClientID, "azp": appClientID, "tid": tenantID,
		"aud": armAudience(emu), "iss": emu.URL() + "/" + tenantID + "/v2.0",
	})
	if ttl := time.Until(tok.ExpiresOn); ttl < 50*time.Minute || ttl > 61*time.Minute {
		t.Errorf("access token expires in %s, want about an hour", ttl)
	}

	ex := emu.Audit(emulator.AuditFilter{Service: "entra", ClientID: appClientID})
	if len(ex) != 1 {
		t.Fatalf("Entra audit for %s: %d entries, want 1: %+v", appClientID, len(ex), ex)
	}
	if e := ex[0]; e.Status != http.StatusOK || e.Subject != subjectA || e.PrincipalID != appObjectID || e.TenantID != tenantID || e.ErrorCode != "" {
		t.Errorf("Entra audit entry = %+v, want status 200, subject %s, principal %s, tenant %s", e, subjectA, appObjectID, tenantID)
	}

	rgs, err := armresources.NewResourceGroupsClient(subscriptionID, cred, armOptions(emu))
	if err != nil {
		t.Fatal(err)
	}
	rg, err := rgs.CreateOrUpdate(ctx, "team-a", armresources.ResourceGroup{Location: to.Ptr("westeurope")}, nil)
	if err != nil {
		t.Fatalf("create resource group with the exchanged token: %v", err)
	}
	wantID := "/subscriptions/" + subscriptionID + "/resourceGroups/team-a"
	if rg.ID == nil || *rg.ID != wantID {
		t.Errorf("resource group ID = %v, want %s", rg.ID, wantID)
	}
	var put *emulator.AuditEntry
	for _, e := range emu.Audit(emulator.AuditFilter{Service: "arm", Method: http.MethodPut}) {
		if strings.EqualFold(e.Path, wantID) {
			put = &e
		}
	}
	if put == nil {
		t.Fatalf("no ARM audit entry for PUT %s", wantID)
	}
	if put.PrincipalID != appObjectID || put.ClientID != appClientID || put.Status/100 != 2 {
		t.Errorf("ARM audit entry = %+v, want principal %s, client %s, a 2xx status", *put, appObjectID, appClientID)
	}
	// The ARM client reused the token decoded above: no second TokenRequest or exchange.
	if n := src.requests.Load(); n != 1 {
		t.Errorf("%d TokenRequests for one exchange and one ARM call, want 1", n)
	}
	if n := len(emu.Audit(emulator.AuditFilter{Service: "entra"})); n != 1 {
		t.Errorf("%d Entra exchanges for one GetToken and one ARM call, want 1", n)
	}
}

// Every way a real ServiceAccount token can fail to match is refused with the AADSTS code
// and the part that differs, as Entra ID words it.
func TestExchangeRefused(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	iss := c.env.IssuerURL
	const unknownClientID = "99999999-9999-4999-8999-999999999999"
	fic := func(issuer, subject string) []emulator.FederatedCredential {
		return []emulator.FederatedCredential{{Name: "k8s", Issuer: issuer, Subject: subject, Audiences: []string{exchangeAudience}}}
	}
	tests := []struct {
		name      string
		fics      []emulator.FederatedCredential // of app registration appClientID
		untrusted bool                           // the emulator does not trust the API server at all
		ns        string                         // ServiceAccount namespace of the token
		audience  string                         // of the token; exchangeAudience when empty
		clientID  string                         // presented; appClientID when empty
		code      string
		wants     []string
		// hidden must not be in the refusal: Entra tells the caller what
		// is wrong with its own assertion, never what a credential expects.
		hidden  []string
		subject string // expected in the audit entry
	}{
		{
			name: "subject: team-b's token with team-a's client ID", fics: fic(iss, subjectA), ns: "team-b",
			code:    "AADSTS70021",
			wants:   []string{"Assertion Subject: '" + subjectB + "'"},
			hidden:  []string{subjectA, "'k8s'"},
			subject: subjectB,
		},
		{
			name: "subject is case-sensitive", fics: fic(iss, "system:serviceaccount:Team-A:azure"), ns: "team-a",
			code:    "AADSTS70021",
			wants:   []string{"Assertion Subject: '" + subjectA + "'"},
			hidden:  []string{"Team-A"},
			subject: subjectA,
		},
		{
			name: "issuer: credential has a trailing slash", fics: fic(iss+"/", subjectA), ns: "team-a",
			code:    "AADSTS70021",
			wants:   []string{"Assertion Issuer: '" + iss + "'"},
			hidden:  []string{iss + "/'"},
			subject: subjectA,
		},
		{
			name: "issuer: credential names another cluster", fics: fic("https://oidc.example.com/other-cluster", subjectA), ns: "team-a",
			code:    "AADSTS70021",
			wants:   []string{"Assertion Issuer: '" + iss + "'"},
			hidden:  []string{"other-cluster"},
			subject: subjectA,
		},
		{
			name: "issuer: not trusted at all", fics: fic(iss, subjectA), untrusted: true, ns: "team-a",
			code:    "AADSTS700211",
			wants:   []string{"No matching federated identity record found for presented assertion issuer '" + iss + "'"},
			subject: subjectA,
		},
		{
			name: "audience: token for api://other", fics: fic(iss, subjectA), ns: "team-a", audience: "api://other",
			code:    "AADSTS70021",
			wants:   []string{"Assertion Audience: 'api://other'"},
			hidden:  []string{exchangeAudience},
			subject: subjectA,
		},
		{
			name: "unknown client ID", fics: fic(iss, subjectA), ns: "team-a", clientID: unknownClientID,
			code:  "AADSTS700016",
			wants: []string{"Application with identifier '" + unknownClientID + "' was not found in the directory '" + tenantID + "'"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var trusted []emulator.TrustedIssuer
			if !tc.untrusted {
				trusted = append(trusted, c.trustAPIServer())
			}
			emu := startEmulator(t, []emulator.Principal{{ClientID: appClientID, TenantID: tenantID, FederatedCredentials: tc.fics}}, trusted...)
			aud, clientID := tc.audience, tc.clientID
			if aud == "" {
				aud = exchangeAudience
			}
			if clientID == "" {
				clientID = appClientID
			}
			src := &assertions{c: c, ns: tc.ns, aud: aud}
			_, err := workloadCred(t, emu, clientID, src.get).GetToken(ctxT(t), armScope(emu))
			wantRefusal(t, err, append([]string{tc.code + ":"}, tc.wants...)...)
			for _, h := range tc.hidden {
				if strings.Contains(err.Error(), h) {
					t.Errorf("the refusal discloses %q: %v", h, err)
				}
			}

			ex := emu.Audit(emulator.AuditFilter{Service: "entra", ClientID: clientID})
			if len(ex) != 1 {
				t.Fatalf("Entra audit: %d entries, want 1: %+v", len(ex), ex)
			}
			if e := ex[0]; e.Status != http.StatusBadRequest || e.ErrorCode != tc.code || e.Subject != tc.subject || e.PrincipalID != "" {
				t.Errorf("Entra audit entry = %+v, want status 400, code %s, subject %q, no principal", e, tc.code, tc.subject)
			}
			if ct := emu.Counters(); ct.TokensIssued != 0 || ct.TokenFailures != 1 {
				t.Errorf("counters: %d tokens issued, %d refused; want 0 and 1", ct.TokensIssued, ct.TokenFailures)
			}
		})
	}
}

// A real token whose exp was moved into the past after signing fails on its signature:
// the API server's keys, discovered by the emulator, do not verify it.
func TestTamperedAssertionRefused(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	emu := startEmulator(t, []emulator.Principal{teamA(c)}, c.trustAPIServer())
	ctx := ctxT(t)

	genuine, err := c.saToken(ctx, "team-a", exchangeAudience)
	if err != nil {
		t.Fatal(err)
	}
	claims := payload(t, genuine)
	if exp, _ := claims["exp"].(float64); time.Until(time.Unix(int64(exp), 0)) > time.Duration(minTokenExpiry+60)*time.Second {
		t.Errorf("TokenRequest granted more than the minimum expiry: exp %v", claims["exp"])
	}
	claims["exp"] = time.Now().Add(-time.Hour).Unix()
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(genuine, ".")
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]

	// The untampered token is accepted, so the refusal below is about the edit alone.
	if _, err := workloadCred(t, emu, appClientID, func(context.Context) (string, error) { return genuine, nil }).GetToken(ctx, armScope(emu)); err != nil {
		t.Fatalf("the untampered token: %v", err)
	}
	_, err = workloadCred(t, emu, appClientID, func(context.Context) (string, error) { return tampered, nil }).GetToken(ctx, armScope(emu))
	wantRefusal(t, err, "AADSTS50027:", "JWT token is invalid or malformed", "signature", "does not verify with any key of issuer '"+c.env.IssuerURL+"'")
	if ex := emu.Audit(emulator.AuditFilter{Service: "entra", ClientID: appClientID}); len(ex) != 2 || ex[1].ErrorCode != "AADSTS50027" {
		t.Errorf("Entra audit: %+v, want a success then AADSTS50027", ex)
	}
}

// testIssuer is an OIDC issuer of the test's own: an HTTPS server publishing discovery and a
// JWKS of a key generated here, so assertions can be signed with any validity window.
type testIssuer struct {
	url, caPEM string
	key        *rsa.PrivateKey
	jwksHits   atomic.Int64
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ti := &testIssuer{key: key}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &key.PublicKey, KeyID: "test-1", Use: "sig", Algorithm: string(jose.RS256)},
	}})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		base := "https://" + r.Host
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": base, "jwks_uri": base + "/openid/v1/jwks",
			"response_types_supported": []string{"id_token"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("GET /openid/v1/jwks", func(w http.ResponseWriter, r *http.Request) {
		ti.jwksHits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(jwks)
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	ti.url = srv.URL
	ti.caPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	return ti
}

func (ti *testIssuer) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: ti.key, KeyID: "test-1"}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The assertion's validity window is enforced with a minute of leeway. A real API server
// will not mint an expired token, so a second trusted issuer, registered at run time and
// discovered by URL + CA like the API server, signs assertions with chosen exp and nbf.
func TestAssertionValidityWindow(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ti := newTestIssuer(t)
	app := teamA(c)
	app.FederatedCredentials = append(app.FederatedCredentials,
		emulator.FederatedCredential{Name: "test-issuer", Issuer: ti.url, Subject: subjectA, Audiences: []string{exchangeAudience}})
	emu := startEmulator(t, []emulator.Principal{app}, c.trustAPIServer())
	if err := emu.AddTrustedIssuer(emulator.TrustedIssuer{Issuer: ti.url, CAPEM: ti.caPEM}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		exp, nbf time.Duration // from now
		wants    []string      // nil: accepted
	}{
		{name: "valid", exp: 10 * time.Minute, nbf: -time.Minute},
		{name: "expired 30s ago, within the leeway", exp: -30 * time.Second, nbf: -10 * time.Minute},
		{name: "expired 5m ago", exp: -5 * time.Minute, nbf: -15 * time.Minute,
			wants: []string{"AADSTS700024:", "Client assertion is not within its valid time range", "expiry time of assertion"}},
		{name: "not valid for 5m", exp: 15 * time.Minute, nbf: 5 * time.Minute,
			wants: []string{"AADSTS700024:", "Client assertion is not within its valid time range", "assertion valid from"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Now()
			exp, nbf := now.Add(tc.exp).Unix(), now.Add(tc.nbf).Unix()
			a := ti.sign(t, map[string]any{
				"iss": ti.url, "sub": subjectA, "aud": []string{exchangeAudience},
				"exp": exp, "nbf": nbf, "iat": nbf,
			})
			_, err := workloadCred(t, emu, appClientID, func(context.Context) (string, error) { return a, nil }).GetToken(ctxT(t), armScope(emu))
			if tc.wants == nil {
				if err != nil {
					t.Fatalf("GetToken: %v", err)
				}
				return
			}
			wantRefusal(t, err, append(tc.wants,
				time.Unix(exp, 0).UTC().Format(time.RFC3339), time.Unix(nbf, 0).UTC().Format(time.RFC3339))...)
		})
	}
	if ti.jwksHits.Load() == 0 {
		t.Error("the emulator never fetched the test issuer's JWKS")
	}

	// The API server stays trusted beside the second issuer.
	src := &assertions{c: c, ns: "team-a", aud: exchangeAudience}
	if _, err := workloadCred(t, emu, appClientID, src.get).GetToken(ctxT(t), armScope(emu)); err != nil {
		t.Errorf("API server token beside a second issuer: %v", err)
	}
}

// A user-assigned managed identity and its federated credential, both created through ARM,
// trust the real API server at once; deleting the credential through ARM ends the trust for
// every new exchange.
func TestManagedIdentityFederatedThroughARM(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	emu := startEmulator(t, nil, c.trustAPIServer())
	ctx := ctxT(t)
	platform := platformCred(t, emu)

	rgs, err := armresources.NewResourceGroupsClient(subscriptionID, platform, armOptions(emu))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rgs.CreateOrUpdate(ctx, "identities", armresources.ResourceGroup{Location: to.Ptr("westeurope")}, nil); err != nil {
		t.Fatal(err)
	}
	ids, err := armmsi.NewUserAssignedIdentitiesClient(subscriptionID, platform, armOptions(emu))
	if err != nil {
		t.Fatal(err)
	}
	fics, err := armmsi.NewFederatedIdentityCredentialsClient(subscriptionID, platform, armOptions(emu))
	if err != nil {
		t.Fatal(err)
	}
	mi, err := ids.CreateOrUpdate(ctx, "identities", "team-a-azure", armmsi.Identity{Location: to.Ptr("westeurope")}, nil)
	if err != nil {
		t.Fatalf("create identity: %v", err)
	}
	if mi.ID == nil || mi.Properties == nil || mi.Properties.ClientID == nil || mi.Properties.PrincipalID == nil {
		t.Fatalf("identity lacks id, clientId or principalId: %+v", mi.Identity)
	}
	clientID, principalID := *mi.Properties.ClientID, *mi.Properties.PrincipalID
	if _, err := fics.CreateOrUpdate(ctx, "identities", "team-a-azure", "team-a", armmsi.FederatedIdentityCredential{
		Properties: &armmsi.FederatedIdentityCredentialProperties{
			Issuer: to.Ptr(c.env.IssuerURL), Subject: to.Ptr(subjectA), Audiences: []*string{to.Ptr(exchangeAudience)},
		},
	}, nil); err != nil {
		t.Fatalf("create federated identity credential: %v", err)
	}

	src := &assertions{c: c, ns: "team-a", aud: exchangeAudience}
	cred := workloadCred(t, emu, clientID, src.get)
	tok, err := cred.GetToken(ctx, armScope(emu))
	if err != nil {
		t.Fatalf("exchange right after the credential was created: %v", err)
	}
	wantClaims(t, payload(t, tok.Token), map[string]string{
		"oid": principalID, "appid": clientID, "tid": tenantID, "xms_mirid": *mi.ID,
	})
	if ex := emu.Audit(emulator.AuditFilter{Service: "entra", ClientID: clientID}); len(ex) != 1 || ex[0].Subject != subjectA || ex[0].PrincipalID != principalID {
		t.Errorf("Entra audit: %+v, want one exchange of %s by %s", ex, subjectA, principalID)
	}

	if _, err := fics.Delete(ctx, "identities", "team-a-azure", "team-a", nil); err != nil {
		t.Fatalf("delete federated identity credential: %v", err)
	}
	// The old credential still serves its cached token without asking Entra, which is why
	// the refusal must be observed through a new credential object.
	before := emu.Counters().Entra
	if _, err := cred.GetToken(ctx, armScope(emu)); err != nil {
		t.Errorf("cached token: %v", err)
	}
	if after := emu.Counters().Entra; after != before {
		t.Errorf("a cached token cost %d Entra calls", after-before)
	}
	_, err = workloadCred(t, emu, clientID, src.get).GetToken(ctx, armScope(emu))
	wantRefusal(t, err, "AADSTS70021:", "Assertion Subject: '"+subjectA+"'")
}

// azidentity serializes and caches: 50 concurrent GetToken calls on one credential make one
// TokenRequest and one Entra exchange, and all get the same token.
func TestOneExchangePerTokenLifetime(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	emu := startEmulator(t, []emulator.Principal{teamA(c)}, c.trustAPIServer())
	ctx := ctxT(t)
	src := &assertions{c: c, ns: "team-a", aud: exchangeAudience}
	cred := workloadCred(t, emu, appClientID, src.get)

	const n = 50
	tokens := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			tok, err := cred.GetToken(ctx, armScope(emu))
			tokens[i], errs[i] = tok.Token, err
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("GetToken %d: %v", i, err)
		}
		if tokens[i] != tokens[0] {
			t.Errorf("GetToken %d returned a different token", i)
		}
	}
	if got := src.requests.Load(); got != 1 {
		t.Errorf("%d TokenRequests, want 1", got)
	}
	if ct := emu.Counters(); ct.Entra != 1 || ct.TokensIssued != 1 || ct.TokenFailures != 0 {
		t.Errorf("Entra counters: %d calls, %d issued, %d refused; want 1, 1, 0", ct.Entra, ct.TokensIssued, ct.TokenFailures)
	}
	if ex := emu.Audit(emulator.AuditFilter{Service: "entra"}); len(ex) != 1 || ex[0].ClientID != appClientID || ex[0].Subject != subjectA {
		t.Errorf("Entra audit: %+v, want one exchange by %s for %s", ex, appClientID, subjectA)
	}
}
