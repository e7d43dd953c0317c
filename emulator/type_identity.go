package emulator

import (
	"net/http"
	"strings"
	"time"
)

const (
	typeUserAssignedIdentity = "microsoft.managedidentity/userassignedidentities"
	typeFederatedCredential  = "microsoft.managedidentity/userassignedidentities/federatedidentitycredentials"
	// maxFederatedCredentials is Azure's limit per identity.
	maxFederatedCredentials = 20
)

// userAssignedIdentityBehaviour assigns clientId, principalId and tenantId once and makes
// the identity a principal of the directory, so it can get tokens and receive roles.
func userAssignedIdentityBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.ManagedIdentity/userAssignedIdentities",
		lro:      LROConfig{Write: LROSync, Delete: LROSync},
		prepare: func(w *writeRequest) *apiError {
			if err := w.requireLocation(); err != nil {
				return err
			}
			w.keep("tenantId", func() any { return w.tenantID })
			w.keep("principalId", func() any { return newGUID() })
			w.keep("clientId", func() any { return newGUID() })
			return nil
		},
		stored: func(e *Emulator, r *resource) {
			p := r.props()
			d := &directoryEntry{
				objectID: str(p, "principalId"), clientID: str(p, "clientId"), tenantID: str(p, "tenantId"),
				displayName: str(r.body, "name"), resourceKey: r.key,
			}
			if e.byObjectID[strings.ToLower(d.objectID)] == nil {
				d.created = time.Now()
			}
			e.registerLocked(d)
		},
		removed: func(e *Emulator, r *resource) {
			if d := e.byClientID[strings.ToLower(str(r.props(), "clientId"))]; d != nil && d.resourceKey == r.key {
				e.unregisterLocked(d)
			}
		},
	}
}

// federatedCredentialBehaviour validates issuer, subject and audiences and enforces Azure's
// limit of 20 credentials per identity. The Entra side reads these resources at every
// exchange, so creating or deleting one takes effect immediately.
func federatedCredentialBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials",
		lro:      LROConfig{Write: LROSync, Delete: LROSync},
		prepare: func(w *writeRequest) *apiError {
			f := ficFromBody(w.body)
			switch {
			case !strings.HasPrefix(f.Issuer, "https://"):
				return badRequest("BadRequest", "The issuer of Federated Identity Credential '%s' must be a valid https URL, got '%s'.", w.target.name, f.Issuer)
			case f.Subject == "":
				return badRequest("BadRequest", "The subject of Federated Identity Credential '%s' is required.", w.target.name)
			case len(f.Audiences) == 0:
				return badRequest("BadRequest", "The audiences of Federated Identity Credential '%s' must hold one value, such as 'api://AzureADTokenExchange'.", w.target.name)
			}
			siblings := collectLocked(w.target.parent, typeFederatedCredential, false, nil)
			others := 0
			for _, s := range siblings {
				if strings.EqualFold(s.id, w.target.id) {
					continue
				}
				others++
				if o := ficFromBody(s.body); o.Issuer == f.Issuer && o.Subject == f.Subject {
					return armErr(http.StatusConflict, "Conflict",
						"Federated Identity Credential '%s' already has issuer '%s' and subject '%s'; an identity may have only one credential per issuer and subject.", o.Name, f.Issuer, f.Subject)
				}
			}
			if others >= maxFederatedCredentials {
				return badRequest("BadRequest", "Too many Federated Identity Credentials are written to Managed Identity '%s'. The maximum is %d.", w.target.parent.id, maxFederatedCredentials)
			}
			return nil
		},
	}
}

func ficFromBody(body map[string]any) FederatedCredential {
	p, _ := body["properties"].(map[string]any)
	f := FederatedCredential{Name: str(body, "name"), Issuer: str(p, "issuer"), Subject: str(p, "subject")}
	if auds, ok := p["audiences"].([]any); ok {
		for _, a := range auds {
			if s, ok := a.(string); ok {
				f.Audiences = append(f.Audiences, s)
			}
		}
	}
	return f
}

// ficWriteInFlight emulates a federated credential write taking
// Config.FICWriteSettle: while one is in flight, another write of a credential
// under the same identity is refused, as Azure refuses concurrent ones; a
// client writing one after the other never sees the refusal. It returns how
// long the accepted write must take.
func (e *Emulator) ficWriteInFlight(req *armRequest) (time.Duration, *apiError) {
	settle := time.Duration(e.cfg.FICWriteSettle)
	if settle == 0 {
		settle = 100 * time.Millisecond
	}
	if settle < 0 || req.target.TypeKey() != typeFederatedCredential {
		return 0, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	identity := e.resources[req.path.Parent().Key()]
	if identity == nil {
		return 0, nil // the write answers 404
	}
	now := time.Now()
	if now.Before(identity.ficBusyUntil) {
		return 0, armErr(http.StatusConflict, "ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity",
			"Too many Federated Identity Credentials are written concurrently for the managed identity '%s'. Concurrent Federated Identity Credentials writes under the same managed identity are not supported.", identity.id)
	}
	identity.ficBusyUntil = now.Add(settle)
	return settle, nil
}
