package emulator

import (
	"net/http"
	"strings"

	"github.com/aztenant/aztenant/emulator/entra"
)

// The AD FS authority. MSAL for Python before 1.23 and the az CLI before
// 2.53 (Debian's is 2.45) look any authority host they do not know up on
// login.microsoftonline.com first (instance discovery), which an offline
// machine cannot reach, and offer no switch to skip it; the one authority
// they trust as it is is an AD FS one, `https://<host>/adfs`, which is how
// Azure Stack Hub's disconnected deployments sign in. So the emulator is
// also that authority: its discovery document and token endpoint under
// /adfs, where the same client-credentials exchange (a client secret or a
// federated client assertion) runs in the tenant of the client ID, since an
// AD FS authority names no tenant. ARM's /metadata/endpoints names it as the
// login endpoint, as Azure Stack Hub's ARM does, so `az cloud register
// --endpoint-resource-manager <URL>` finds it.
const adfsTenant = "adfs"

// serveADFS handles /adfs/.well-known/openid-configuration, /adfs/discovery/keys
// and /adfs/oauth2/token; it reports false for other paths.
func (e *Emulator) serveADFS(w http.ResponseWriter, r *http.Request) bool {
	rest, ok := strings.CutPrefix(strings.TrimSuffix(r.URL.Path, "/"), "/"+adfsTenant+"/")
	if !ok {
		return false
	}
	if entra.Endpoints[rest] && e.serveEntraOutage(w, r, strings.HasSuffix(rest, "token")) {
		return true
	}
	switch rest {
	case ".well-known/openid-configuration":
		writeJSON(w, http.StatusOK, entra.ADFSDiscovery(e.base(r)+"/"+adfsTenant))
	case "discovery/keys":
		writeJSON(w, http.StatusOK, e.signer.PublicJWKS())
	case "oauth2/token":
		r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequestBodySize)
		_ = r.ParseForm() // serveToken answers a body it cannot parse
		e.serveToken(w, r, e.clientTenant(r.PostForm.Get("client_id")))
	default:
		return false
	}
	return true
}

// clientTenant is the tenant of the app registration or managed identity
// with this client ID, or "adfs" when there is none, which the exchange
// answers as Entra does an unknown tenant.
func (e *Emulator) clientTenant(clientID string) string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if d := e.byClientID[strings.ToLower(clientID)]; d != nil {
		return d.tenantID
	}
	return adfsTenant
}

// serveMetadataEndpoints answers GET /metadata/endpoints as ARM does
// (anonymously; msrestazure and `az cloud register` read it to fill in a
// cloud's login endpoint and token audience), naming the emulator's AD FS
// authority as the login endpoint, as Azure Stack Hub's ARM does.
func (e *Emulator) serveMetadataEndpoints(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("api-version") == "" {
		writeARMError(w, badRequest("MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests."))
		return
	}
	b := e.base(r)
	auds := make([]string, 0, len(e.armAudiences))
	for _, a := range e.armAudiences {
		auds = append(auds, a+"/") // as ARM spells them; the emulator compares them without
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"galleryEndpoint": b + "/",
		"graphEndpoint":   "https://graph.windows.net/",
		"portalEndpoint":  b + "/",
		"authentication": map[string]any{
			"loginEndpoint": b + "/" + adfsTenant,
			"audiences":     auds,
		},
	})
}
