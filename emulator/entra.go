package emulator

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aztenant/aztenant/emulator/entra"
)

// maxTokenRequestBodySize bounds what a token endpoint reads.
const maxTokenRequestBodySize = 64 << 10

// serveEntra handles /{tenant}/v2.0/.well-known/openid-configuration,
// /{tenant}/discovery/v2.0/keys and /{tenant}/oauth2/v2.0/token. It reports false for other
// paths.
func (e *Emulator) serveEntra(w http.ResponseWriter, r *http.Request) bool {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 2 {
		return false
	}
	tenant, rest := parts[0], strings.Join(parts[1:], "/")
	if known := entra.Endpoints[rest]; known && e.serveEntraOutage(w, r, strings.HasSuffix(rest, "token")) {
		return true
	}
	switch rest {
	case "v2.0/.well-known/openid-configuration", ".well-known/openid-configuration":
		e.serveDiscovery(w, r, tenant)
	case "discovery/v2.0/keys", "discovery/keys":
		writeJSON(w, http.StatusOK, e.signer.PublicJWKS())
	case "oauth2/v2.0/token", "oauth2/token":
		e.serveToken(w, r, tenant)
	default:
		return false
	}
	return true
}

func (e *Emulator) base(r *http.Request) string { return "https://" + r.Host }

// serveDiscovery answers MSAL's tenant discovery, built from the request host.
func (e *Emulator) serveDiscovery(w http.ResponseWriter, r *http.Request, tenant string) {
	if !e.knownTenant(tenant) {
		writeEntraError(w, entra.Errorf("invalid_tenant", 90002, "Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant))
		return
	}
	writeJSON(w, http.StatusOK, entra.Discovery(e.base(r), tenant))
}

func writeEntraError(w http.ResponseWriter, err *entra.Error) {
	writeJSON(w, err.Status, err.Body())
}

// serveToken runs the exchange of package entra, auditing it and remembering what
// KeepIssued asks for.
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
		writeEntraError(w, &entra.Error{Status: status, Kind: "invalid_request", AADSTS: 900561, Description: "The endpoint only accepts POST requests."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequestBodySize)
	if err := r.ParseForm(); err != nil {
		status = http.StatusBadRequest
		writeEntraError(w, entra.Errorf("invalid_request", 900144, "The request body could not be parsed."))
		return
	}
	e.audit.issued.add(r.PostForm.Get("client_assertion"))
	e.audit.issued.add(r.PostForm.Get("client_secret"))
	var at entra.Attempt
	tok, err := e.entra.Exchange(r.Context(), e.base(r), tenant, r.PostForm, &at)
	entry.ClientID, entry.Subject, entry.PrincipalID = at.ClientID, at.Subject, at.PrincipalID
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

// entraDirectory is the directory as package entra asks for it.
type entraDirectory struct{ e *Emulator }

func (d entraDirectory) KnownTenant(t string) bool { return d.e.knownTenant(t) }

func (d entraDirectory) Client(tenant, clientID string) (entra.Client, bool) {
	e := d.e
	e.mu.RLock()
	defer e.mu.RUnlock()
	de := e.byClientID[strings.ToLower(clientID)]
	if de == nil || !strings.EqualFold(de.tenantID, tenant) {
		return entra.Client{}, false
	}
	c := entra.Client{ObjectID: de.objectID, ClientID: de.clientID, TenantID: de.tenantID, Secret: de.secret,
		FederatedCredentials: e.federatedCredentialsLocked(de)}
	if de.resourceKey != "" {
		if r := e.resources[de.resourceKey]; r != nil {
			c.ManagedIdentityID = r.id
		}
	}
	return c, true
}

func (e *Emulator) knownTenant(t string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.tenants[strings.ToLower(t)] != nil
}
