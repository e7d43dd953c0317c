package identity

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Scope is what a credential may be used for: the identity behind it and the
// subscription its resources live in.
type Scope struct {
	Namespace      string
	Identity       string
	ServiceAccount string
	ClientID       string
	TenantID       string
	SubscriptionID string
}

// Broker hands reconcilers the credential of the Identity serving an object.
type Broker struct {
	reader   client.Reader
	creds    *Credentials
	resolved *resolvedCache // nil: resolve on every call
	// allowUnreserved lets Identities name any ServiceAccount (see
	// CheckReserved); off unless the operator is told otherwise.
	allowUnreserved bool
}

// AllowUnreservedServiceAccounts lets the broker exchange ServiceAccounts
// that admission does not reserve for the operator. Anyone able to create a
// pod or a token in such a namespace can then act as its identity directly.
func (b *Broker) AllowUnreservedServiceAccounts(allow bool) *Broker {
	b.allowUnreserved = allow
	return b
}

// UnreservedAllowed reports the setting of AllowUnreservedServiceAccounts.
func (b *Broker) UnreservedAllowed() bool { return b.allowUnreserved }

// NewBroker resolves Identities through r (the manager's cache in the operator).
func NewBroker(r client.Reader, creds *Credentials) *Broker {
	return &Broker{reader: r, creds: creds}
}

// CredentialFor returns the credential of the Identity serving obj and its
// scope. An *Error says why there is none; the caller must then not call Azure.
func (b *Broker) CredentialFor(ctx context.Context, obj client.Object) (azcore.TokenCredential, Scope, error) {
	res, err := b.resolve(ctx, obj)
	if err != nil {
		return nil, Scope{}, err
	}
	cred, err := b.creds.For(res)
	if err != nil {
		return nil, Scope{}, err
	}
	return cred, scopeOf(res), nil
}

// ARMClientFor returns an ARM pipeline acting as the Identity serving obj, in
// that Identity's subscription, and its scope.
func (b *Broker) ARMClientFor(ctx context.Context, obj client.Object) (*arm.Client, Scope, error) {
	res, err := b.resolve(ctx, obj)
	if err != nil {
		return nil, Scope{}, err
	}
	cl, err := b.creds.ARMClient(res)
	if err != nil {
		return nil, Scope{}, err
	}
	return cl, scopeOf(res), nil
}

func (b *Broker) resolve(ctx context.Context, obj client.Object) (*Resolved, error) {
	if b.resolved == nil {
		return Resolve(ctx, b.reader, obj, b.allowUnreserved)
	}
	name, err := IdentityNameFor(obj)
	if err != nil {
		return nil, err
	}
	ns := obj.GetNamespace()
	res, epoch := b.resolved.get(ns, name)
	if res != nil {
		return res, nil
	}
	// Failures are not remembered: the fix (creating the Identity) is an event
	// that would drop the entry anyway, and errors are the rare path.
	res, err = Resolve(ctx, b.reader, obj, b.allowUnreserved)
	if err == nil {
		b.resolved.put(ns, name, res, epoch)
	}
	return res, err
}

// Credentials exposes the broker's credential cache (for invalidation).
func (b *Broker) Credentials() *Credentials { return b.creds }

func scopeOf(r *Resolved) Scope {
	return Scope{
		Namespace: r.Namespace, Identity: r.IdentityName, ServiceAccount: r.ServiceAccount,
		ClientID: r.ClientID, TenantID: r.TenantID, SubscriptionID: r.SubscriptionID,
	}
}

var aadsts = regexp.MustCompile(`AADSTS\d+:[^"\\]*`)

// AsFederationError turns an Entra ID rejection somewhere in err's chain into
// an *Error with reason FederationRejected carrying Entra's own description
// (which says whether issuer, subject or audience did not match). Other errors
// are returned unchanged.
func AsFederationError(err error, s Scope) error {
	var afe *azidentity.AuthenticationFailedError
	if !errors.As(err, &afe) {
		return err
	}
	desc := aadsts.FindString(afe.Error())
	if desc == "" {
		desc = strings.TrimSpace(afe.Error())
	}
	// Entra appends a trace ID, a correlation ID and a timestamp that change
	// on every attempt; kept in status they would make each refusal a new
	// status write, and each write a new attempt.
	if i := strings.Index(desc, " Trace ID:"); i >= 0 {
		desc = desc[:i]
	}
	if afe.RawResponse != nil && (afe.RawResponse.StatusCode >= 500 || afe.RawResponse.StatusCode == http.StatusTooManyRequests) {
		return errorf(ReasonEntraUnavailable, err,
			"Entra ID is unavailable (HTTP %d) for ServiceAccount %s/%s, client ID %s: %s; retrying",
			afe.RawResponse.StatusCode, s.Namespace, s.ServiceAccount, s.ClientID, strings.TrimSpace(desc))
	}
	return errorf(ReasonFederationRejected, err,
		"Entra ID refused the token of ServiceAccount %s/%s for client ID %s in tenant %s: %s",
		s.Namespace, s.ServiceAccount, s.ClientID, s.TenantID, strings.TrimSpace(desc))
}

// PrincipalOf reads the object ID (oid) from an Entra access token. The token
// came from Entra over TLS; this only decodes it for display.
func PrincipalOf(accessToken string) string {
	parts := strings.Split(accessToken, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		OID string `json:"oid"`
	}
	if json.Unmarshal(payload, &c) != nil {
		return ""
	}
	return c.OID
}
