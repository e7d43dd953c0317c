package identity

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
)

type credKey struct{ namespace, serviceAccount, clientID, tenantID string }

type credEntry struct {
	cred  azcore.TokenCredential
	saUID types.UID
	// arm holds one ARM pipeline per subscription, sharing the credential and so
	// its cached access token.
	arm map[string]*arm.Client
}

// Credentials holds one Entra ID credential per (namespace, serviceaccount,
// clientID, tenantID). azidentity caches access tokens inside a credential, so
// reusing it makes every resource of an identity share one exchange per token
// lifetime.
type Credentials struct {
	tokens *TokenCache
	opts   azcore.ClientOptions

	mu    sync.Mutex
	creds map[credKey]*credEntry
	// armPolicies see every ARM attempt (metrics, tracing), not Entra's.
	armPolicies []policy.Policy
	// perIdentity builds a policy bound to one identity (its ARM budget).
	perIdentity func(clientID string) policy.Policy

	exchanges atomic.Int64
}

// NewCredentials builds credentials that get assertions from tokens and talk to
// Entra ID with opts.
func NewCredentials(tokens *TokenCache, opts azcore.ClientOptions) *Credentials {
	return &Credentials{tokens: tokens, opts: opts, creds: map[credKey]*credEntry{}}
}

// For returns the credential of a resolved identity.
func (c *Credentials) For(res *Resolved) (azcore.TokenCredential, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, err := c.entryLocked(res)
	if err != nil {
		return nil, err
	}
	return e.cred, nil
}

// WithARMPolicies adds policies to every ARM pipeline built afterwards; each
// sees every attempt, retries included.
func (c *Credentials) WithARMPolicies(p ...policy.Policy) *Credentials {
	c.armPolicies = append(c.armPolicies, p...)
	return c
}

// WithPerIdentityARMPolicy adds, to every ARM pipeline built afterwards, a
// policy made for that pipeline's identity (ARM throttles per principal).
func (c *Credentials) WithPerIdentityARMPolicy(f func(clientID string) policy.Policy) *Credentials {
	c.perIdentity = f
	return c
}

// ARMClient returns an ARM pipeline acting as the resolved identity in its
// subscription.
func (c *Credentials) ARMClient(res *Resolved) (*arm.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, err := c.entryLocked(res)
	if err != nil {
		return nil, err
	}
	if cl, ok := e.arm[res.SubscriptionID]; ok {
		return cl, nil
	}
	// Tenants hold roles on resource groups, not the subscription-wide right to
	// register resource providers, so the SDK must not try.
	opts := c.opts
	opts.PerRetryPolicies = append(append([]policy.Policy(nil), opts.PerRetryPolicies...), c.armPolicies...)
	if c.perIdentity != nil {
		opts.PerRetryPolicies = append(opts.PerRetryPolicies, c.perIdentity(res.ClientID))
	}
	cl, err := arm.NewClient("aztenant", "v0.1.0", e.cred, &arm.ClientOptions{ClientOptions: opts, DisableRPRegistration: true})
	if err != nil {
		return nil, err
	}
	e.arm[res.SubscriptionID] = cl
	return cl, nil
}

func (c *Credentials) entryLocked(res *Resolved) (*credEntry, error) {
	key := credKey{res.Namespace, res.ServiceAccount, res.ClientID, res.TenantID}
	e, ok := c.creds[key]
	if ok && e.saUID == res.ServiceAccountUID {
		return e, nil
	}
	if ok {
		// The ServiceAccount was recreated: nothing minted for the old one may be
		// presented again, nor an access token obtained with it.
		c.forgetLocked(res.Namespace, res.ServiceAccount)
	}
	ns, sa := res.Namespace, res.ServiceAccount
	scope := Scope{Namespace: ns, ServiceAccount: sa, ClientID: res.ClientID, TenantID: res.TenantID}
	failures := &assertionFailures{}
	exchanges := &atomic.Int64{}
	assertion := func(ctx context.Context) (string, error) {
		// Each exchange with Entra asks for an assertion, so this counts
		// exchanges, and the exchange's span starts here.
		c.exchanges.Add(1)
		exchanges.Add(1)
		ctx = exchangeTraceFrom(ctx).start(ctx, scope)
		tok, err := c.tokens.Token(ctx, ns, sa, TokenAudience)
		if err != nil {
			failures.record(err)
		}
		return tok, err
	}
	inner, err := azidentity.NewClientAssertionCredential(res.TenantID, res.ClientID, assertion,
		&azidentity.ClientAssertionCredentialOptions{ClientOptions: c.opts, DisableInstanceDiscovery: true})
	if err != nil {
		return nil, err
	}
	cred := renewingCredential{inner: inner, forget: func() { c.tokens.Forget(ns, sa) }, failures: failures, exchanges: exchanges, scope: scope}
	e = &credEntry{cred: cred, saUID: res.ServiceAccountUID, arm: map[string]*arm.Client{}}
	c.creds[key] = e
	return e, nil
}

// Forget drops the credentials and tokens of a ServiceAccount: it was deleted,
// or an Identity naming it changed.
func (c *Credentials) Forget(ns, sa string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgetLocked(ns, sa)
}

func (c *Credentials) forgetLocked(ns, sa string) {
	for k := range c.creds {
		if k.namespace == ns && k.serviceAccount == sa {
			delete(c.creds, k)
		}
	}
	c.tokens.Forget(ns, sa)
}

// Len is the number of cached credentials.
func (c *Credentials) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.creds)
}

// Exchanges counts assertions handed to Entra ID so far.
func (c *Credentials) Exchanges() int64 { return c.exchanges.Load() }

// renewingCredential replaces a ServiceAccount token Entra ID refused as
// expired (AADSTS700024: its clock and ours disagree, or the token outlived
// its use) and exchanges once more at once, instead of presenting the refused
// token until the cache's own refresh point.
//
// It also tells a ServiceAccount token the API server would not mint from a
// refusal by Entra ID: azidentity reports both alike, as an authentication
// failure without Entra's answer.
type renewingCredential struct {
	inner  azcore.TokenCredential
	forget func()

	failures *assertionFailures
	// exchanges counts this credential's exchanges with Entra (azidentity
	// serves cached access tokens without one).
	exchanges *atomic.Int64
	scope     Scope
}

func (r renewingCredential) GetToken(ctx context.Context, opts policy.TokenRequestOptions) (azcore.AccessToken, error) {
	// An exchange is a span of its own, child of whatever needed the token;
	// logExchange ends it with the outcome.
	ctx, x := withExchangeTrace(ctx)
	defer x.close()
	exchangesBefore := r.exchanges.Load()
	since := time.Now()
	tok, err := r.inner.GetToken(ctx, opts)
	if err != nil && assertionExpired(err) {
		logExchange(ctx, r.scope, "", time.Time{}, AsFederationError(err, r.scope))
		r.forget()
		since = time.Now()
		tok, err = r.inner.GetToken(ctx, opts)
	}
	if err != nil {
		if aerr := r.failures.since(since); aerr != nil {
			err = tokenRequestFailed(r.scope.Namespace, r.scope.ServiceAccount, aerr)
			logExchange(ctx, r.scope, "", time.Time{}, err)
			return tok, err
		}
	}
	if r.exchanges.Load() != exchangesBefore {
		if err != nil {
			logExchange(ctx, r.scope, "", time.Time{}, AsFederationError(err, r.scope))
		} else {
			logExchange(ctx, r.scope, PrincipalOf(tok.Token), tok.ExpiresOn, nil)
		}
	}
	return tok, err
}

// logExchange logs one exchange of a ServiceAccount token with Entra ID, or
// its refusal, with the principal (never a token: only the object ID read
// from it, and Entra's error description), and ends its span the same way.
func logExchange(ctx context.Context, s Scope, principal string, expires time.Time, err error) {
	exchangeTraceFrom(ctx).end(principal, expires, err)
	log := ctrl.LoggerFrom(ctx).WithValues("serviceAccount", s.Namespace+"/"+s.ServiceAccount, "clientID", s.ClientID, "tenantID", s.TenantID)
	if err != nil {
		log.Info("token exchange refused", "reason", ReasonOf(err), "message", err.Error())
		return
	}
	log.Info("token exchange", "principalID", principal, "expires", expires.UTC().Format(time.RFC3339))
}

// tokenRequestFailed explains a ServiceAccount token the API server did not
// mint: in a namespace being deleted it mints none, so whoever holds no token
// of the namespace any more cannot act as it.
func tokenRequestFailed(ns, sa string, err error) error {
	if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		return errorf(ReasonTokenRequestFailed, err, "no token of ServiceAccount %s/%s: namespace %s is being deleted, and the API server mints no new token there (%v). "+
			"The operator acts in a namespace being deleted only with a token it already holds (--serviceaccount-token-expiry); it holds none now (it restarted, or the token expired)",
			ns, sa, ns, err)
	}
	return errorf(ReasonTokenRequestFailed, err, "could not obtain a token for ServiceAccount %s/%s: %v", ns, sa, err)
}

// assertionFailures remembers when the last assertion (TokenRequest) of a
// credential failed, and why.
type assertionFailures struct {
	mu  sync.Mutex
	err error
	at  time.Time
}

func (a *assertionFailures) record(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.err, a.at = err, time.Now()
}

// since returns the last failure if it happened at or after t.
func (a *assertionFailures) since(t time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil && !a.at.Before(t) {
		return a.err
	}
	return nil
}

func assertionExpired(err error) bool {
	var afe *azidentity.AuthenticationFailedError
	return errors.As(err, &afe) && strings.Contains(afe.Error(), "AADSTS700024")
}
