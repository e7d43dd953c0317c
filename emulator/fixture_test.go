package emulator_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/aztenant/aztenant/emulator"
)

const (
	tokenExchangeAudience = "api://AzureADTokenExchange"
	tenantID              = "5f1d0c3a-8a4e-4b8e-9f7d-0a1b2c3d4e5f"
	otherTenantID         = "6a2e1d4b-9b5f-4c9f-8e6a-1b2c3d4e5f60"
	subscriptionID        = "3c7a9e2b-1d4f-4a6b-8c9d-2e3f4a5b6c7d"
	platformClientID      = "0a9b8c7d-6e5f-4a3b-9c1d-0e1f2a3b4c5d"
	platformSecret        = "platform-secret-value"
	appClientID           = "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e"
	testIssuer            = "https://kubernetes.test.local"
	otherIssuer           = "https://other-cluster.test.local"
	workloadSubject       = "system:serviceaccount:team-a:azure"
	rgScope               = "/subscriptions/" + subscriptionID + "/resourceGroups/"
)

var fastPoll = &runtime.PollUntilDoneOptions{Frequency: 10 * time.Millisecond}

// Keys are generated once per test binary: RSA generation is the slow part of start-up.
var (
	serverKeyPEM = sync.OnceValue(func() string {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	})
	testKeys = sync.OnceValue(func() *testSigner {
		ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		rk, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		return &testSigner{ec: ec, rsa: rk}
	})
	strangerKey = sync.OnceValue(func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		return k
	})
)

// testSigner plays a Kubernetes API server: it signs ServiceAccount-like tokens with ES256
// or RS256 and publishes its keys as a JWKS.
type testSigner struct {
	ec  *ecdsa.PrivateKey
	rsa *rsa.PrivateKey
}

func (s *testSigner) jwks() json.RawMessage {
	return jwksOf(map[string]crypto.PublicKey{"ec-1": &s.ec.PublicKey, "rsa-1": &s.rsa.PublicKey})
}

// jwksOf renders public keys as a JSON Web Key Set.
func jwksOf(keys map[string]crypto.PublicKey) json.RawMessage {
	var set jose.JSONWebKeySet
	for kid, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k, KeyID: kid, Use: "sig"})
	}
	b, err := json.Marshal(set)
	if err != nil {
		panic(err)
	}
	return b
}

// assertion returns a token for subject with the usual Kubernetes shape.
func assertion(iss, sub string, aud []string, ttl time.Duration) map[string]any {
	now := time.Now()
	return map[string]any{"iss": iss, "sub": sub, "aud": aud, "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(ttl).Unix()}
}

func signES256(key *ecdsa.PrivateKey, kid string, claims map[string]any) string {
	return signJWT(jose.ES256, key, kid, claims)
}

func signRS256Test(key *rsa.PrivateKey, kid string, claims map[string]any) string {
	return signJWT(jose.RS256, key, kid, claims)
}

func signJWT(alg jose.SignatureAlgorithm, key crypto.Signer, kid string, claims map[string]any) string {
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		panic(err)
	}
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		panic(err)
	}
	return tok
}

type fixture struct {
	emu *emulator.Emulator
}

// newFixture starts an emulator with one tenant, one subscription, the platform principal
// (client secret, Owner on the subscription) and an app registration federated with the
// test issuer. Both test issuers are trusted through a literal JWKS.
func newFixture(t testing.TB, mutate ...func(*emulator.Config)) *fixture {
	t.Helper()
	cfg := emulator.Config{
		SigningKeyPEM: serverKeyPEM(),
		Seed: emulator.Seed{
			Tenants:       []emulator.Tenant{{ID: tenantID, DisplayName: "Contoso"}, {ID: otherTenantID}},
			Subscriptions: []emulator.Subscription{{ID: subscriptionID, TenantID: tenantID, DisplayName: "dev"}},
			Principals: []emulator.Principal{
				{ClientID: platformClientID, TenantID: tenantID, DisplayName: "platform", ClientSecret: platformSecret,
					Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + subscriptionID}}},
				{ClientID: appClientID, TenantID: tenantID, DisplayName: "team-a",
					FederatedCredentials: []emulator.FederatedCredential{{Name: "team-a", Issuer: testIssuer, Subject: workloadSubject, Audiences: []string{tokenExchangeAudience}}}},
			},
			TrustedIssuers: []emulator.TrustedIssuer{
				{Issuer: testIssuer, JWKS: testKeys().jwks()},
				{Issuer: otherIssuer, JWKS: testKeys().jwks()},
			},
		},
	}
	for _, m := range mutate {
		m(&cfg)
	}
	emu, err := emulator.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := emu.Start(ctx); err != nil {
		cancel()
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		emu.Close()
	})
	return &fixture{emu: emu}
}

func (f *fixture) platformCred(t testing.TB) azcore.TokenCredential {
	t.Helper()
	cred, err := azidentity.NewClientSecretCredential(tenantID, platformClientID, platformSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: f.emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// workloadCred exchanges a freshly signed assertion for clientID, as a pod with a projected
// ServiceAccount token would.
func (f *fixture) workloadCred(t testing.TB, clientID string, claims func() map[string]any) azcore.TokenCredential {
	t.Helper()
	opts := f.emu.ClientOptions()
	cred, err := azidentity.NewClientAssertionCredential(tenantID, clientID,
		func(context.Context) (string, error) { return signES256(testKeys().ec, "ec-1", claims()), nil },
		&azidentity.ClientAssertionCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

func workloadClaims() map[string]any {
	return assertion(testIssuer, workloadSubject, []string{tokenExchangeAudience}, time.Hour)
}

func (f *fixture) armOptions() *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: f.emu.ClientOptions(), DisableRPRegistration: true}
}

func armScope() []string { return []string{"https://management.core.windows.net//.default"} }

func getToken(ctx context.Context, cred azcore.TokenCredential) error {
	_, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: armScope()})
	return err
}

// responseError unwraps an SDK error into status and ARM error code.
func responseError(t testing.TB, err error) (int, string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("want *azcore.ResponseError, got %T: %v", err, err)
	}
	return re.StatusCode, re.ErrorCode
}

func mustContain(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func tokenRequest() policy.TokenRequestOptions { return policy.TokenRequestOptions{Scopes: armScope()} }

// workloadCredSigned is workloadCred with a caller-made assertion.
func (f *fixture) workloadCredSigned(t testing.TB, clientID string, sign func() string) azcore.TokenCredential {
	t.Helper()
	cred, err := azidentity.NewClientAssertionCredential(tenantID, clientID,
		func(context.Context) (string, error) { return sign(), nil },
		&azidentity.ClientAssertionCredentialOptions{ClientOptions: f.emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}
