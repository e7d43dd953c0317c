package identity

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"k8s.io/apimachinery/pkg/types"
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
	assertion := func(ctx context.Context) (string, error) {
		// Each exchange with Entra asks for an assertion, so this counts exchanges.
		c.exchanges.Add(1)
		return c.tokens.Token(ctx, ns, sa, TokenAudience)
	}
	inner, err := azidentity.NewClientAssertionCredential(res.TenantID, res.ClientID, assertion,
		&azidentity.ClientAssertionCredentialOptions{ClientOptions: c.opts, DisableInstanceDiscovery: true})
	if err != nil {
		return nil, err
	}
	cred := renewingCredential{inner: inner, forget: func() { c.tokens.Forget(ns, sa) }}
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
type renewingCredential struct {
	inner  azcore.TokenCredential
	forget func()
}

func (r renewingCredential) GetToken(ctx context.Context, opts policy.TokenRequestOptions) (azcore.AccessToken, error) {
	tok, err := r.inner.GetToken(ctx, opts)
	if err != nil && assertionExpired(err) {
		r.forget()
		return r.inner.GetToken(ctx, opts)
	}
	return tok, err
}

func assertionExpired(err error) bool {
	var afe *azidentity.AuthenticationFailedError
	return errors.As(err, &afe) && strings.Contains(afe.Error(), "AADSTS700024")
}
