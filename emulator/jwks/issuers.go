package jwks

import (
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// refetchInterval limits how often the same unknown kid makes the emulator fetch an
// issuer's keys again, and maxMisses how many distinct unknown kids may do so per interval,
// so a flood of bad assertions cannot become a flood of fetches while a real key rotation
// is picked up at once.
const (
	refetchInterval = 5 * time.Second
	maxMisses       = 16
)

// TrustedIssuer is an external OIDC issuer (such as a Kubernetes API server) whose signed
// tokens may be presented as client assertions. Give either JWKS (a literal key set) or let
// the emulator discover keys at <Issuer>/.well-known/openid-configuration -> jwks_uri.
type TrustedIssuer struct {
	// Issuer is the exact "iss" of the assertions.
	Issuer string `json:"issuer"`
	// JWKS is a literal JSON Web Key Set; when set nothing is fetched.
	JWKS json.RawMessage `json:"jwks,omitempty"`
	// CAPEM is the CA bundle used to fetch discovery and keys over HTTPS.
	CAPEM string `json:"caPEM,omitempty"`
	// BearerToken is sent when fetching (some API servers refuse anonymous discovery).
	BearerToken string `json:"bearerToken,omitempty"`
	// HTTPClient overrides the client used for fetching (in-process use only).
	HTTPClient *http.Client `json:"-"`
}

// Issuer holds the verification keys of one trusted issuer, fetched lazily and cached.
type Issuer struct {
	cfg    TrustedIssuer
	client *http.Client

	mu      sync.Mutex
	keys    map[string][]crypto.PublicKey // by kid, "" for keys without one
	fetched time.Time
	misses  map[string]time.Time // unknown kid -> last fetch it caused
}

func newIssuer(cfg TrustedIssuer) (*Issuer, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("trusted issuer: issuer is required")
	}
	ik := &Issuer{cfg: cfg, client: cfg.HTTPClient}
	if len(cfg.JWKS) > 0 {
		if err := ik.load(cfg.JWKS); err != nil {
			return nil, fmt.Errorf("trusted issuer %s: %w", cfg.Issuer, err)
		}
		return ik, nil
	}
	if !strings.HasPrefix(cfg.Issuer, "https://") {
		return nil, fmt.Errorf("trusted issuer %s: without a literal JWKS the issuer must be an https URL", cfg.Issuer)
	}
	if ik.client == nil {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if cfg.CAPEM != "" {
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM([]byte(cfg.CAPEM)) {
				return nil, fmt.Errorf("trusted issuer %s: CA bundle holds no certificate", cfg.Issuer)
			}
			tc.RootCAs = pool
		}
		ik.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	}
	return ik, nil
}

func (ik *Issuer) load(doc []byte) error {
	keys, err := signatureKeys(doc)
	if err != nil {
		return err
	}
	ik.keys = keys
	return nil
}

// Candidates returns the keys that may have signed a token with this kid, fetching the
// issuer's JWKS when it is not cached or does not know the kid.
func (ik *Issuer) Candidates(ctx context.Context, kid string) ([]crypto.PublicKey, error) {
	ik.mu.Lock()
	defer ik.mu.Unlock()
	known := func() []crypto.PublicKey {
		if kid != "" {
			if k, ok := ik.keys[kid]; ok {
				return k
			}
			return ik.keys[""]
		}
		var out []crypto.PublicKey
		for _, k := range ik.keys {
			out = append(out, k...)
		}
		return out
	}
	if ks := known(); len(ks) > 0 || len(ik.cfg.JWKS) > 0 {
		return ks, nil
	}
	if !ik.fetched.IsZero() {
		now := time.Now()
		for k, at := range ik.misses {
			if now.Sub(at) >= refetchInterval {
				delete(ik.misses, k)
			}
		}
		if _, recent := ik.misses[kid]; recent || len(ik.misses) >= maxMisses {
			return nil, nil
		}
		if ik.misses == nil {
			ik.misses = map[string]time.Time{}
		}
		ik.misses[kid] = now
	}
	if err := ik.fetch(ctx); err != nil {
		return nil, err
	}
	return known(), nil
}

func (ik *Issuer) fetch(ctx context.Context) error {
	ik.fetched = time.Now()
	var disc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := ik.getJSON(ctx, strings.TrimSuffix(ik.cfg.Issuer, "/")+"/.well-known/openid-configuration", &disc); err != nil {
		return fmt.Errorf("discovery of %s: %w", ik.cfg.Issuer, err)
	}
	if disc.JWKSURI == "" {
		return fmt.Errorf("discovery of %s: no jwks_uri", ik.cfg.Issuer)
	}
	var raw json.RawMessage
	if err := ik.getJSON(ctx, disc.JWKSURI, &raw); err != nil {
		return fmt.Errorf("keys of %s: %w", ik.cfg.Issuer, err)
	}
	return ik.load(raw)
}

// jwksAccept is the Accept header of discovery and key fetches: the media types of OpenID
// discovery and of JWK sets.
const jwksAccept = "application/json, application/jwk-set+json"

func (ik *Issuer) getJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	// A Kubernetes API server serves its JWKS as application/jwk-set+json and answers 406 Not
	// Acceptable to a request that accepts only application/json.
	req.Header.Set("Accept", jwksAccept)
	if ik.cfg.BearerToken != "" {
		req.Header.Set("Authorization", "Bearer "+ik.cfg.BearerToken)
	}
	resp, err := ik.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.Unmarshal(body, out)
}

// sameIssuer compares issuer URLs the way operators write them: a trailing slash is not a
// different issuer when looking up trust (federated credentials still compare exactly).
func sameIssuer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// Trust is the list of trusted issuers, looked up by the "iss" of an assertion.
type Trust struct {
	mu      sync.RWMutex
	issuers []*Issuer
}

// Add trusts assertions of an OIDC issuer (replacing an earlier entry for the same issuer).
func (t *Trust) Add(ti TrustedIssuer) error {
	ik, err := newIssuer(ti)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, old := range t.issuers {
		if old.cfg.Issuer == ti.Issuer {
			t.issuers[i] = ik
			return nil
		}
	}
	t.issuers = append(t.issuers, ik)
	return nil
}

// Lookup finds the issuer of iss, exactly first, then ignoring a trailing slash; nil when
// iss is not trusted.
func (t *Trust) Lookup(iss string) *Issuer {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, ik := range t.issuers {
		if ik.cfg.Issuer == iss {
			return ik
		}
	}
	for _, ik := range t.issuers {
		if sameIssuer(ik.cfg.Issuer, iss) {
			return ik
		}
	}
	return nil
}

// Configs are the trusted issuers as they were added, for the state file.
func (t *Trust) Configs() []TrustedIssuer {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []TrustedIssuer
	for _, ik := range t.issuers {
		out = append(out, ik.cfg)
	}
	return out
}
