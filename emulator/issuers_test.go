package emulator_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/aztenant/aztenant/emulator"
)

// fakeAPIServer publishes OIDC discovery and a JWKS over HTTPS with its own CA, the way a
// Kubernetes API server serves its service-account issuer. Its key can be rotated.
type fakeAPIServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	keys  map[string]crypto.PublicKey
	token string // bearer required for discovery, like an API server without anonymous auth
	hits  int
}

func newFakeAPIServer(t *testing.T) *fakeAPIServer {
	a := &fakeAPIServer{keys: map[string]crypto.PublicKey{}, token: "reader-token"}
	a.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+a.token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		a.hits++
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]any{"issuer": a.srv.URL, "jwks_uri": a.srv.URL + "/openid/v1/jwks"})
		case "/openid/v1/jwks":
			w.Write(jwksOf(a.keys))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *fakeAPIServer) addKey(kid string) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys[kid] = &k.PublicKey
	return k
}

func TestTrustedIssuerByURLAndCA(t *testing.T) {
	api := newFakeAPIServer(t)
	key1 := api.addKey("k1")
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.srv.Certificate().Raw})
	f := newFixture(t, func(c *emulator.Config) {
		c.Principals = append(c.Principals, emulator.Principal{ClientID: "7c7c7c7c-7c7c-4c7c-8c7c-7c7c7c7c7c7c", TenantID: tenantID,
			FederatedCredentials: []emulator.FederatedCredential{{Name: "apiserver", Issuer: api.srv.URL, Subject: workloadSubject, Audiences: []string{tokenExchangeAudience}}}})
		c.TrustedIssuers = append(c.TrustedIssuers, emulator.TrustedIssuer{Issuer: api.srv.URL, CAPEM: string(caPEM), BearerToken: api.token})
	})
	exchange := func(key *ecdsa.PrivateKey, kid string) error {
		return getToken(ctxT(t), f.workloadCredSigned(t, "7c7c7c7c-7c7c-4c7c-8c7c-7c7c7c7c7c7c", func() string {
			return signES256(key, kid, assertion(api.srv.URL, workloadSubject, []string{tokenExchangeAudience}, 3600e9))
		}))
	}
	if err := exchange(key1, "k1"); err != nil {
		t.Fatalf("exchange: %v", err)
	}
	if err := exchange(key1, "k1"); err != nil {
		t.Fatalf("second exchange: %v", err)
	}
	api.mu.Lock()
	hits := api.hits
	api.mu.Unlock()
	if hits != 2 {
		t.Errorf("%d fetches for two exchanges with one key; want discovery + JWKS once", hits)
	}
	// The API server rotates its key: an unknown kid makes the emulator fetch again.
	key2 := api.addKey("k2")
	if err := exchange(key2, "k2"); err != nil {
		t.Fatalf("exchange after rotation: %v", err)
	}
}

// negotiatingIssuer serves discovery as application/json and keys as
// application/jwk-set+json, answering 406 Not Acceptable when the Accept header names
// neither the type nor */*, as the Kubernetes API server's go-restful routes do.
func negotiatingIssuer(t *testing.T, jwks []byte) *httptest.Server {
	t.Helper()
	accepts := func(r *http.Request, mime string) bool {
		h := r.Header.Get("Accept")
		if h == "" {
			return true
		}
		for _, part := range strings.Split(h, ",") {
			m, _, _ := strings.Cut(part, ";")
			if m = strings.TrimSpace(m); m == "*/*" || m == mime {
				return true
			}
		}
		return false
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "https://" + r.Host
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			if !accepts(r, "application/json") {
				w.WriteHeader(http.StatusNotAcceptable)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"issuer": base, "jwks_uri": base + "/openid/v1/jwks"})
		case "/openid/v1/jwks":
			if !accepts(r, "application/jwk-set+json") {
				w.WriteHeader(http.StatusNotAcceptable)
				return
			}
			w.Header().Set("Content-Type", "application/jwk-set+json")
			w.Write(jwks)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Keys served as application/jwk-set+json (a Kubernetes API server's /openid/v1/jwks) are
// fetched: the emulator's Accept header admits that media type.
func TestTrustedIssuerKeysServedAsJWKSet(t *testing.T) {
	const clientID = "7d7d7d7d-7d7d-4d7d-8d7d-7d7d7d7d7d7d"
	signer := testKeys()
	srv := negotiatingIssuer(t, signer.jwks())
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	f := newFixture(t, func(c *emulator.Config) {
		c.Principals = append(c.Principals, emulator.Principal{ClientID: clientID, TenantID: tenantID,
			FederatedCredentials: []emulator.FederatedCredential{{Name: "apiserver", Issuer: srv.URL, Subject: workloadSubject, Audiences: []string{tokenExchangeAudience}}}})
		c.TrustedIssuers = append(c.TrustedIssuers, emulator.TrustedIssuer{Issuer: srv.URL, CAPEM: string(caPEM)})
	})
	err := getToken(ctxT(t), f.workloadCredSigned(t, clientID, func() string {
		return signES256(signer.ec, "ec-1", assertion(srv.URL, workloadSubject, []string{tokenExchangeAudience}, time.Hour))
	}))
	if err != nil {
		t.Fatalf("exchange with keys served as application/jwk-set+json: %v", err)
	}
}

// A JWKS may hold keys the emulator cannot verify with (a symmetric key, a curve it does
// not know): they are skipped, the others still verify, and a symmetric key is never an
// HMAC secret for an assertion.
func TestTrustedIssuerKeySetWithUnusableKeys(t *testing.T) {
	signer := testKeys()
	var set map[string][]json.RawMessage
	if err := json.Unmarshal(signer.jwks(), &set); err != nil {
		t.Fatal(err)
	}
	secret := []byte("0123456789abcdef0123456789abcdef")
	set["keys"] = append([]json.RawMessage{
		json.RawMessage(`{"kty":"oct","kid":"hmac-1","k":"` + base64.RawURLEncoding.EncodeToString(secret) + `"}`),
		json.RawMessage(`{"kty":"OKP","kid":"x-1","crv":"X448","x":"AAAA"}`),
	}, set["keys"]...)
	jwks, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *emulator.Config) { c.TrustedIssuers[0].JWKS = jwks })
	if err := getToken(ctxT(t), f.workloadCred(t, appClientID, workloadClaims)); err != nil {
		t.Fatalf("exchange with an EC key next to unusable ones: %v", err)
	}
	hmac := f.workloadCredSigned(t, appClientID, func() string {
		sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: jose.JSONWebKey{Key: secret, KeyID: "hmac-1"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.Signed(sig).Claims(workloadClaims()).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	})
	err = getToken(ctxT(t), hmac)
	if err == nil {
		t.Fatal("an HS256 assertion keyed with a JWKS entry was accepted")
	}
	mustContain(t, err.Error(), "AADSTS50027")
}
