package emulator

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"
)

// directoryEntry is a principal that can get tokens: an app registration (seeded) or a
// user-assigned managed identity (created through ARM).
type directoryEntry struct {
	objectID    string
	clientID    string
	tenantID    string
	displayName string
	secret      string
	// appFICs are an app registration's federated credentials; a managed identity's live in
	// the resource tree as child resources under resourceKey.
	appFICs     []FederatedCredential
	resourceKey string
	seeded      Principal // as seeded, for the state file
	// created is when a managed identity's principal was created (zero for
	// seeded principals): role assignments naming it without principalType
	// fail for Config.PrincipalReplication after it, as in Entra.
	created time.Time
}

// resetStateLocked empties the directory, the resource tree and all operations.
func (e *Emulator) resetStateLocked() {
	e.tenants = map[string]*Tenant{}
	e.resources = map[string]*resource{}
	e.byClientID = map[string]*directoryEntry{}
	e.byObjectID = map[string]*directoryEntry{}
	e.grants = map[string]map[string]grant{}
	e.ops = map[string]*operation{}
	e.opOrder = nil
	e.pending = map[string]*operation{}
	e.pendingN.Store(0)
	e.lro = map[string]LROConfig{}
	e.tokens.clear()
}

// Seed adds tenants, subscriptions, principals, trusted issuers and role assignments, in
// that order, so one Seed can reference what it creates.
func (e *Emulator) Seed(s Seed) error {
	for _, ti := range s.TrustedIssuers {
		if err := e.AddTrustedIssuer(ti); err != nil {
			return err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range s.Tenants {
		if t.ID == "" {
			return fmt.Errorf("seed: tenant without id")
		}
		cp := t
		e.tenants[strings.ToLower(t.ID)] = &cp
	}
	for _, sub := range s.Subscriptions {
		if err := e.addSubscriptionLocked(sub); err != nil {
			return err
		}
	}
	var roles []RoleAssignment
	for _, p := range s.Principals {
		oid, err := e.addPrincipalLocked(p)
		if err != nil {
			return err
		}
		for _, ra := range p.Roles {
			ra.PrincipalID = oid
			roles = append(roles, ra)
		}
	}
	for _, ra := range append(roles, s.RoleAssignments...) {
		if err := e.assignRoleLocked(ra); err != nil {
			return err
		}
	}
	return nil
}

func (e *Emulator) addSubscriptionLocked(s Subscription) error {
	if s.ID == "" || s.TenantID == "" {
		return fmt.Errorf("seed: subscription needs id and tenantId")
	}
	if e.tenants[strings.ToLower(s.TenantID)] == nil {
		return fmt.Errorf("seed: subscription %s: unknown tenant %s", s.ID, s.TenantID)
	}
	id := "/subscriptions/" + s.ID
	name := s.DisplayName
	if name == "" {
		name = s.ID
	}
	body := map[string]any{
		"id": id, "subscriptionId": s.ID, "tenantId": s.TenantID, "displayName": name,
		"state": "Enabled", "authorizationSource": "RoleBased", "managedByTenants": []any{},
		"subscriptionPolicies": map[string]any{"locationPlacementId": "Public_2014-09-01", "quotaId": "PayAsYouGo_2014-09-01", "spendingLimit": "Off"},
	}
	if old := e.lookupLocked(id); old != nil {
		old.body = body
		old.refresh()
		return nil
	}
	r := &resource{id: id, key: strings.ToLower(id), typ: "Microsoft.Resources/subscriptions", body: body}
	r.refresh()
	e.insertLocked(r)
	return nil
}

func (e *Emulator) addPrincipalLocked(p Principal) (string, error) {
	if p.ClientID == "" || p.TenantID == "" {
		return "", fmt.Errorf("seed: principal needs clientId and tenantId")
	}
	if e.tenants[strings.ToLower(p.TenantID)] == nil {
		return "", fmt.Errorf("seed: principal %s: unknown tenant %s", p.ClientID, p.TenantID)
	}
	if old := e.byClientID[strings.ToLower(p.ClientID)]; old != nil {
		if p.ObjectID == "" {
			p.ObjectID = old.objectID
		}
		delete(e.byObjectID, strings.ToLower(old.objectID))
	}
	if p.ObjectID == "" {
		p.ObjectID = newGUID()
	}
	for _, f := range p.FederatedCredentials {
		if f.Issuer == "" || f.Subject == "" || len(f.Audiences) == 0 {
			return "", fmt.Errorf("seed: principal %s: federated credential %q needs issuer, subject and audiences", p.ClientID, f.Name)
		}
	}
	d := &directoryEntry{
		objectID: p.ObjectID, clientID: p.ClientID, tenantID: p.TenantID, displayName: p.DisplayName,
		secret: p.ClientSecret, appFICs: append([]FederatedCredential(nil), p.FederatedCredentials...),
	}
	d.seeded = p
	d.seeded.Roles = nil
	e.registerLocked(d)
	return p.ObjectID, nil
}

func (e *Emulator) registerLocked(d *directoryEntry) {
	if old := e.byObjectID[strings.ToLower(d.objectID)]; old != nil && d.created.IsZero() {
		d.created = old.created
	}
	e.byClientID[strings.ToLower(d.clientID)] = d
	e.byObjectID[strings.ToLower(d.objectID)] = d
}

func (e *Emulator) unregisterLocked(d *directoryEntry) {
	if cur := e.byClientID[strings.ToLower(d.clientID)]; cur == d {
		delete(e.byClientID, strings.ToLower(d.clientID))
	}
	if cur := e.byObjectID[strings.ToLower(d.objectID)]; cur == d {
		delete(e.byObjectID, strings.ToLower(d.objectID))
	}
}

// federatedCredentialsLocked lists the credentials of a principal: an app's own, or the
// federatedIdentityCredentials child resources of a managed identity, read at exchange time
// so ARM changes take effect at once.
func (e *Emulator) federatedCredentialsLocked(d *directoryEntry) []FederatedCredential {
	if d.resourceKey == "" {
		return d.appFICs
	}
	r := e.resources[d.resourceKey]
	if r == nil {
		return nil
	}
	var out []FederatedCredential
	for _, c := range collectLocked(r, typeFederatedCredential, false, nil) {
		out = append(out, ficFromBody(c.body))
	}
	return out
}

// AddTrustedIssuer trusts assertions of an OIDC issuer (replacing an earlier entry for the
// same issuer).
func (e *Emulator) AddTrustedIssuer(ti TrustedIssuer) error { return e.trust.Add(ti) }

// newGUID returns a random RFC 4122 version 4 UUID.
func newGUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return formatGUID(b)
}

// stableGUID derives a GUID from text, for names that must be the same on every run.
func stableGUID(text string) string {
	d := sha256.Sum256([]byte(text))
	var b [16]byte
	copy(b[:], d[:16])
	return formatGUID(b)
}

func formatGUID(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func isGUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// PrincipalID returns the object ID of the app registration or managed identity with this
// client ID, for role assignments and audit queries.
func (e *Emulator) PrincipalID(clientID string) (string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	d := e.byClientID[strings.ToLower(clientID)]
	if d == nil {
		return "", fmt.Errorf("principal %s: %w", clientID, ErrNotFound)
	}
	return d.objectID, nil
}
