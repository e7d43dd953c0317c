package entra

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/aztenant/aztenant/emulator/jwks"
)

const (
	jwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	assertionLeeway        = time.Minute
)

// assertionAlgorithms are the signatures accepted on client assertions: those Kubernetes
// API servers and Entra sign with. No symmetric algorithm, so a key set can never be
// turned into an HMAC secret.
var assertionAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
}

// FederatedCredential trusts tokens of Issuer for Subject with one of Audiences.
type FederatedCredential struct {
	Name      string   `json:"name"`
	Issuer    string   `json:"issuer"`
	Subject   string   `json:"subject"`
	Audiences []string `json:"audiences"`
}

// Client is a principal that can get tokens, as the exchange needs it.
type Client struct {
	ObjectID, ClientID, TenantID string
	Secret                       string // "" when it has none
	FederatedCredentials         []FederatedCredential
	// ManagedIdentityID is the ARM ID of a user-assigned managed identity (xms_mirid);
	// "" for an app registration.
	ManagedIdentityID string
}

// Directory is what the exchange asks of the emulator's directory. Credentials are read
// at each exchange so ARM changes to a managed identity's take effect at once.
type Directory interface {
	KnownTenant(tenant string) bool
	// Client finds the principal with this client ID in tenant.
	Client(tenant, clientID string) (Client, bool)
}

// Form is the token request's form (url.Values).
type Form interface{ Get(string) string }

// Attempt is what the exchange learnt of the caller, for the audit log, even when it fails.
type Attempt struct {
	ClientID, Subject, PrincipalID string
}

// Server runs the client-credentials exchange.
type Server struct {
	Directory Directory
	Trust     *jwks.Trust
	Signer    *jwks.Signer
	// Now is the time assertions are checked against (a fault may skew it).
	Now      func() time.Time
	TokenTTL time.Duration
}

// Exchange runs the client-credentials grant with a client assertion (workload identity
// federation) or a client secret, and returns a signed access token. base is the scheme
// and host the client called: the token's issuer is built from it.
func (s *Server) Exchange(ctx context.Context, base, tenant string, form Form, at *Attempt) (string, *Error) {
	if !s.Directory.KnownTenant(tenant) {
		return "", Errorf("invalid_request", 90002, "Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant)
	}
	if gt := form.Get("grant_type"); gt != "client_credentials" {
		return "", Errorf("unsupported_grant_type", 70003, "The app requested an unsupported grant type '%s'. The emulator supports client_credentials only.", gt)
	}
	clientID := form.Get("client_id")
	at.ClientID = clientID
	if clientID == "" {
		return "", Errorf("invalid_request", 900144, "The request body must contain the following parameter: 'client_id'.")
	}
	resource := ""
	for _, sc := range strings.Fields(form.Get("scope")) {
		if strings.HasSuffix(sc, "/.default") {
			resource = strings.TrimSuffix(sc, "/.default")
		}
	}
	if resource == "" {
		return "", Errorf("invalid_scope", 1002012, "The provided value for scope %q is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).", form.Get("scope"))
	}
	// The "claims" parameter (continuous access evaluation) is accepted and ignored.

	d, ok := s.Directory.Client(tenant, clientID)
	if !ok {
		return "", Errorf("unauthorized_client", 700016, "Application with identifier '%s' was not found in the directory '%s'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.", clientID, tenant)
	}

	switch {
	case form.Get("client_assertion") != "":
		if t := form.Get("client_assertion_type"); t != jwtBearerAssertionType {
			return "", Errorf("invalid_request", 50027, "JWT token is invalid or malformed. client_assertion_type must be '%s'.", jwtBearerAssertionType)
		}
		claims, err := s.verifyAssertion(ctx, form.Get("client_assertion"))
		if claims != nil {
			at.Subject = claims.Subject
		}
		if err != nil {
			return "", err
		}
		if err := matchFederatedCredential(d.FederatedCredentials, claims); err != nil {
			return "", err
		}
	case form.Get("client_secret") != "":
		if d.Secret == "" || subtle.ConstantTimeCompare([]byte(d.Secret), []byte(form.Get("client_secret"))) != 1 {
			return "", Errorf("invalid_client", 7000215, "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.", clientID)
		}
	default:
		return "", Errorf("invalid_client", 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
	}
	at.PrincipalID = d.ObjectID
	tok, err := s.issueToken(d, base, resource)
	if err != nil {
		return "", &Error{Status: http.StatusInternalServerError, Kind: "server_error", AADSTS: 50000, Description: "There was an error issuing a token: " + err.Error()}
	}
	return tok, nil
}

// verifyAssertion checks a client assertion's issuer trust, signature and validity window.
// It returns the claims even on some failures so the audit log can name the subject.
func (s *Server) verifyAssertion(ctx context.Context, assertion string) (*jwt.Claims, *Error) {
	tok, err := jwt.ParseSigned(assertion, assertionAlgorithms)
	var c jwt.Claims
	if err != nil || tok.UnsafeClaimsWithoutVerification(&c) != nil {
		return nil, Errorf("invalid_client", 50027, "JWT token is invalid or malformed.")
	}
	h := tok.Headers[0] // a compact JWS has exactly one signature
	ik := s.Trust.Lookup(c.Issuer)
	if ik == nil {
		return &c, Errorf("invalid_client", 700211, "No matching federated identity record found for presented assertion issuer '%s'. Please check your federated identity credential Subject, Audience and Issuer against the presented assertion.", c.Issuer)
	}
	keys, kerr := ik.Candidates(ctx, h.KeyID)
	if kerr != nil {
		return &c, Errorf("invalid_client", 50027, "JWT token is invalid or malformed. The signing keys of issuer '%s' could not be obtained: %v", c.Issuer, kerr)
	}
	verified := false
	for _, k := range keys {
		if tok.Claims(k) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return &c, Errorf("invalid_client", 50027, "JWT token is invalid or malformed. The signature of the assertion (alg %s, kid '%s') does not verify with any key of issuer '%s'.", h.Algorithm, h.KeyID, c.Issuer)
	}
	if c.Expiry == nil {
		return &c, Errorf("invalid_client", 50027, "JWT token is invalid or malformed. The assertion has no 'exp' claim.")
	}
	now := s.Now()
	exp, nbf := c.Expiry.Time(), c.NotBefore
	if nbf == nil {
		nbf = c.IssuedAt
	}
	if now.After(exp.Add(assertionLeeway)) || (nbf != nil && now.Add(assertionLeeway).Before(nbf.Time())) {
		from := time.Unix(0, 0)
		if nbf != nil {
			from = nbf.Time()
		}
		return &c, Errorf("invalid_client", 700024, "Client assertion is not within its valid time range. Current time: %s, assertion valid from %s, expiry time of assertion %s. Review the documentation at https://learn.microsoft.com/entra/identity-platform/certificate-credentials .",
			now.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339), exp.UTC().Format(time.RFC3339))
	}
	if c.Subject == "" {
		return &c, Errorf("invalid_client", 50027, "JWT token is invalid or malformed. The assertion has no 'sub' claim.")
	}
	return &c, nil
}

// matchFederatedCredential accepts the assertion when one credential matches issuer and
// subject exactly (case-sensitive) and one of its audiences is in the assertion's aud.
func matchFederatedCredential(fics []FederatedCredential, c *jwt.Claims) *Error {
	iss, sub, auds := c.Issuer, c.Subject, c.Audience
	for _, f := range fics {
		if f.Issuer == iss && f.Subject == sub && intersects(f.Audiences, auds) {
			return nil
		}
	}
	// As Entra: the assertion's own claims only. Naming what another
	// credential expects would tell anyone who tries which subjects an
	// identity trusts.
	return Errorf("invalid_client", 70021, "No matching federated identity record found for presented assertion. Assertion Issuer: '%s'. Assertion Subject: '%s'. Assertion Audience: '%s'. Please check your federated identity credential Subject, Audience and Issuer against the presented assertion. https://learn.microsoft.com/entra/workload-id/workload-identity-federation",
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
func (s *Server) issueToken(d Client, base, resource string) (string, error) {
	now := time.Now()
	c := accessTokenClaims{
		Aud: resource, Iss: base + "/" + d.TenantID + "/v2.0",
		Iat: now.Unix(), Nbf: now.Add(-5 * time.Minute).Unix(), Exp: now.Add(s.TokenTTL).Unix(),
		AppID: d.ClientID, AppIDAcr: "2", Azp: d.ClientID, IDType: "app",
		OID: d.ObjectID, Sub: d.ObjectID, TID: d.TenantID, UTI: newGUID(), Ver: "1.0",
		MIRID: d.ManagedIdentityID,
	}
	return s.Signer.Sign(c)
}
