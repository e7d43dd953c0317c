package emulator

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	jwtBearerAssertionType  = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	tokenExchangeAudience   = "api://AzureADTokenExchange"
	assertionLeeway         = time.Minute
	maxTokenRequestBodySize = 64 << 10
)

// serveEntra handles /{tenant}/v2.0/.well-known/openid-configuration,
// /{tenant}/discovery/v2.0/keys and /{tenant}/oauth2/v2.0/token. It reports false for other
// paths.
func (e *Emulator) serveEntra(w http.ResponseWriter, r *http.Request) bool {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 2 {
		return false
	}
	tenant, rest := parts[0], strings.Join(parts[1:], "/")
	if known := entraPaths[rest]; known && e.serveEntraOutage(w, r, strings.HasSuffix(rest, "token")) {
		return true
	}
	switch rest {
	case "v2.0/.well-known/openid-configuration", ".well-known/openid-configuration":
		e.serveDiscovery(w, r, tenant)
	case "discovery/v2.0/keys", "discovery/keys":
		writeJSON(w, http.StatusOK, e.jwks)
	case "oauth2/v2.0/token", "oauth2/token":
		e.serveToken(w, r, tenant)
	default:
		return false
	}
	return true
}

// entraPaths are the Entra endpoints under a tenant (an outage fault answers them all).
var entraPaths = map[string]bool{
	"v2.0/.well-known/openid-configuration": true, ".well-known/openid-configuration": true,
	"discovery/v2.0/keys": true, "discovery/keys": true, "oauth2/v2.0/token": true, "oauth2/token": true,
}

func (e *Emulator) base(r *http.Request) string { return "https://" + r.Host }

func (e *Emulator) knownTenant(t string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.tenants[strings.ToLower(t)] != nil
}

// serveDiscovery answers MSAL's tenant discovery. MSAL requires the issuer's scheme and
// host:port to match the authority it was given, so everything is built from the request host.
func (e *Emulator) serveDiscovery(w http.ResponseWriter, r *http.Request, tenant string) {
	if !e.knownTenant(tenant) {
		writeEntraError(w, entraErr("invalid_tenant", 90002, "Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant))
		return
	}
	b := e.base(r) + "/" + tenant
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                b + "/v2.0",
		"authorization_endpoint":                b + "/oauth2/v2.0/authorize",
		"token_endpoint":                        b + "/oauth2/v2.0/token",
		"device_authorization_endpoint":         b + "/oauth2/v2.0/devicecode",
		"jwks_uri":                              b + "/discovery/v2.0/keys",
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
		"tenant_region_scope":                   "EU",
		"cloud_instance_name":                   "azure-emulator",
	})
}

func writeEntraError(w http.ResponseWriter, err *entraError) {
	now := time.Now().UTC()
	writeJSON(w, err.Status, map[string]any{
		"error": err.Kind,
		"error_description": fmt.Sprintf("AADSTS%d: %s Trace ID: %s Correlation ID: %s Timestamp: %s",
			err.AADSTS, err.Description, newGUID(), newGUID(), now.Format("2006-01-02 15:04:05Z")),
		"error_codes":    []int{err.AADSTS},
		"timestamp":      now.Format("2006-01-02 15:04:05Z"),
		"trace_id":       newGUID(),
		"correlation_id": newGUID(),
	})
}

func (e *Emulator) serveToken(w http.ResponseWriter, r *http.Request, tenant string) {
	start := time.Now()
	entry := AuditEntry{Time: start, Service: "entra", Method: r.Method, Path: r.URL.Path, TenantID: tenant}
	status := http.StatusOK
	defer func() {
		entry.Status = status
		entry.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
		e.audit.record(entry)
	}()
	if r.Method != http.MethodPost {
		status = http.StatusMethodNotAllowed
		writeEntraError(w, &entraError{Status: status, Kind: "invalid_request", AADSTS: 900561, Description: "The endpoint only accepts POST requests."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequestBodySize)
	if err := r.ParseForm(); err != nil {
		status = http.StatusBadRequest
		writeEntraError(w, entraErr("invalid_request", 900144, "The request body could not be parsed."))
		return
	}
	e.audit.issued.add(r.PostForm.Get("client_assertion"))
	e.audit.issued.add(r.PostForm.Get("client_secret"))
	tok, err := e.exchange(r.Context(), e.base(r), tenant, r.PostForm, &entry)
	e.audit.issued.add(tok)
	if err != nil {
		status = err.Status
		entry.ErrorCode = fmt.Sprintf("AADSTS%d", err.AADSTS)
		// Say why, never what: the assertion itself is not logged.
		e.log.Info("token request refused", "tenant", tenant, "client_id", entry.ClientID, "subject", entry.Subject, "code", entry.ErrorCode)
		writeEntraError(w, err)
		return
	}
	secs := int(e.tokenTTL/time.Second) - 1
	writeJSON(w, http.StatusOK, map[string]any{
		"token_type": "Bearer", "expires_in": secs, "ext_expires_in": secs, "access_token": tok,
	})
}

type formValues interface{ Get(string) string }

// exchange runs the client-credentials grant with a client assertion (workload identity
// federation) or a client secret, and returns a signed access token.
func (e *Emulator) exchange(ctx context.Context, base, tenant string, form formValues, entry *AuditEntry) (string, *entraError) {
	if !e.knownTenant(tenant) {
		return "", entraErr("invalid_request", 90002, "Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant)
	}
	if gt := form.Get("grant_type"); gt != "client_credentials" {
		return "", entraErr("unsupported_grant_type", 70003, "The app requested an unsupported grant type '%s'. The emulator supports client_credentials only.", gt)
	}
	clientID := form.Get("client_id")
	entry.ClientID = clientID
	if clientID == "" {
		return "", entraErr("invalid_request", 900144, "The request body must contain the following parameter: 'client_id'.")
	}
	resource := ""
	for _, s := range strings.Fields(form.Get("scope")) {
		if strings.HasSuffix(s, "/.default") {
			resource = strings.TrimSuffix(s, "/.default")
		}
	}
	if resource == "" {
		return "", entraErr("invalid_scope", 1002012, "The provided value for scope %q is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).", form.Get("scope"))
	}
	// The "claims" parameter (continuous access evaluation) is accepted and ignored.

	e.mu.RLock()
	d := e.byClientID[strings.ToLower(clientID)]
	if d != nil && !strings.EqualFold(d.tenantID, tenant) {
		d = nil
	}
	var fics []FederatedCredential
	if d != nil {
		fics = e.federatedCredentialsLocked(d)
	}
	e.mu.RUnlock()
	if d == nil {
		return "", entraErr("unauthorized_client", 700016, "Application with identifier '%s' was not found in the directory '%s'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.", clientID, tenant)
	}

	switch {
	case form.Get("client_assertion") != "":
		if t := form.Get("client_assertion_type"); t != jwtBearerAssertionType {
			return "", entraErr("invalid_request", 50027, "JWT token is invalid or malformed. client_assertion_type must be '%s'.", jwtBearerAssertionType)
		}
		claims, err := e.verifyAssertion(ctx, form.Get("client_assertion"))
		if claims != nil {
			entry.Subject = claims.Subject
		}
		if err != nil {
			return "", err
		}
		if err := matchFederatedCredential(fics, claims); err != nil {
			return "", err
		}
	case form.Get("client_secret") != "":
		if d.secret == "" || subtle.ConstantTimeCompare([]byte(d.secret), []byte(form.Get("client_secret"))) != 1 {
			return "", entraErr("invalid_client", 7000215, "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.", clientID)
		}
	default:
		return "", entraErr("invalid_client", 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
	}
	entry.PrincipalID = d.objectID
	tok, err := e.issueToken(d, base, resource)
	if err != nil {
		return "", &entraError{Status: http.StatusInternalServerError, Kind: "server_error", AADSTS: 50000, Description: "There was an error issuing a token: " + err.Error()}
	}
	return tok, nil
}

// verifyAssertion checks a client assertion's issuer trust, signature and validity window.
// It returns the claims even on some failures so the audit log can name the subject.
func (e *Emulator) verifyAssertion(ctx context.Context, assertion string) (*jwt.Claims, *entraError) {
	tok, err := jwt.ParseSigned(assertion, assertionAlgorithms)
	var c jwt.Claims
	if err != nil || tok.UnsafeClaimsWithoutVerification(&c) != nil {
		return nil, entraErr("invalid_client", 50027, "JWT token is invalid or malformed.")
	}
	h := tok.Headers[0] // a compact JWS has exactly one signature
	ik := e.trustedIssuer(c.Issuer)
	if ik == nil {
		return &c, entraErr("invalid_client", 700211, "No matching federated identity record found for presented assertion issuer '%s'. Please check your federated identity credential Subject, Audience and Issuer against the presented assertion.", c.Issuer)
	}
	keys, kerr := ik.candidates(ctx, h.KeyID)
	if kerr != nil {
		return &c, entraErr("invalid_client", 50027, "JWT token is invalid or malformed. The signing keys of issuer '%s' could not be obtained: %v", c.Issuer, kerr)
	}
	verified := false
	for _, k := range keys {
		if tok.Claims(k) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return &c, entraErr("invalid_client", 50027, "JWT token is invalid or malformed. The signature of the assertion (alg %s, kid '%s') does not verify with any key of issuer '%s'.", h.Algorithm, h.KeyID, c.Issuer)
	}
	if c.Expiry == nil {
		return &c, entraErr("invalid_client", 50027, "JWT token is invalid or malformed. The assertion has no 'exp' claim.")
	}
	now := e.faults.entraNow()
	exp, nbf := c.Expiry.Time(), c.NotBefore
	if nbf == nil {
		nbf = c.IssuedAt
	}
	if now.After(exp.Add(assertionLeeway)) || (nbf != nil && now.Add(assertionLeeway).Before(nbf.Time())) {
		from := time.Unix(0, 0)
		if nbf != nil {
			from = nbf.Time()
		}
		return &c, entraErr("invalid_client", 700024, "Client assertion is not within its valid time range. Current time: %s, assertion valid from %s, expiry time of assertion %s. Review the documentation at https://learn.microsoft.com/entra/identity-platform/certificate-credentials .",
			now.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339), exp.UTC().Format(time.RFC3339))
	}
	if c.Subject == "" {
		return &c, entraErr("invalid_client", 50027, "JWT token is invalid or malformed. The assertion has no 'sub' claim.")
	}
	return &c, nil
}

// matchFederatedCredential accepts the assertion when one credential matches issuer and
// subject exactly (case-sensitive) and one of its audiences is in the assertion's aud.
// Otherwise the error names the parts of the closest credential that differ.
func matchFederatedCredential(fics []FederatedCredential, c *jwt.Claims) *entraError {
	iss, sub, auds := c.Issuer, c.Subject, c.Audience
	for _, f := range fics {
		if f.Issuer == iss && f.Subject == sub && intersects(f.Audiences, auds) {
			return nil
		}
	}
	// As Entra: the assertion's own claims only. Naming what another
	// credential expects would tell anyone who tries which subjects an
	// identity trusts.
	return entraErr("invalid_client", 70021, "No matching federated identity record found for presented assertion. Assertion Issuer: '%s'. Assertion Subject: '%s'. Assertion Audience: '%s'. Please check your federated identity credential Subject, Audience and Issuer against the presented assertion. https://learn.microsoft.com/entra/workload-id/workload-identity-federation",
		iss, sub, strings.Join(auds, ","))
}

func intersects(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// accessTokenClaims are the claims of tokens the emulator issues, shaped like Entra's v1
// app-only tokens that ARM receives.
type accessTokenClaims struct {
	Aud      string `json:"aud"`
	Iss      string `json:"iss"`
	Iat      int64  `json:"iat"`
	Nbf      int64  `json:"nbf"`
	Exp      int64  `json:"exp"`
	AppID    string `json:"appid"`
	AppIDAcr string `json:"appidacr"`
	Azp      string `json:"azp"`
	IDType   string `json:"idtyp"`
	OID      string `json:"oid"`
	Sub      string `json:"sub"`
	TID      string `json:"tid"`
	UTI      string `json:"uti"`
	Ver      string `json:"ver"`
	MIRID    string `json:"xms_mirid,omitempty"`
}

// issueToken signs an access token; the issuer uses the host the client called, like the
// discovery document it read.
func (e *Emulator) issueToken(d *directoryEntry, base, resource string) (string, error) {
	now := time.Now()
	c := accessTokenClaims{
		Aud: resource, Iss: base + "/" + d.tenantID + "/v2.0",
		Iat: now.Unix(), Nbf: now.Add(-5 * time.Minute).Unix(), Exp: now.Add(e.tokenTTL).Unix(),
		AppID: d.clientID, AppIDAcr: "2", Azp: d.clientID, IDType: "app",
		OID: d.objectID, Sub: d.objectID, TID: d.tenantID, UTI: newGUID(), Ver: "1.0",
	}
	if d.resourceKey != "" {
		e.mu.RLock()
		if r := e.resources[d.resourceKey]; r != nil {
			c.MIRID = r.id
		}
		e.mu.RUnlock()
	}
	return jwt.Signed(e.signer).Claims(c).Serialize()
}
