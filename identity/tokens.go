package identity

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TokenRequester mints ServiceAccount tokens (the TokenRequest API).
type TokenRequester interface {
	RequestToken(ctx context.Context, namespace, serviceAccount, audience string, ttl time.Duration) (token string, expires time.Time, err error)
}

// APITokenRequester calls the TokenRequest API through a controller-runtime
// client (RBAC: create on serviceaccounts/token).
type APITokenRequester struct{ Client client.Client }

// RequestToken implements TokenRequester.
func (a APITokenRequester) RequestToken(ctx context.Context, ns, sa, audience string, ttl time.Duration) (string, time.Time, error) {
	seconds := int64(ttl / time.Second)
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences: []string{audience}, ExpirationSeconds: &seconds,
	}}
	owner := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}}
	if err := a.Client.SubResource("token").Create(ctx, owner, tr); err != nil {
		return "", time.Time{}, err
	}
	return tr.Status.Token, tr.Status.ExpirationTimestamp.Time, nil
}

type tokenKey struct{ namespace, serviceAccount, audience string }

type cachedToken struct {
	token   string
	issued  time.Time
	expires time.Time
}

// fresh reports whether the token has more than a fifth of its life left, so a
// refresh happens well before Entra would see an expired assertion.
func (c cachedToken) fresh(now time.Time) bool {
	return now.Before(c.expires.Add(-c.expires.Sub(c.issued) / 5))
}

// TokenCache caches ServiceAccount tokens per (namespace, serviceaccount,
// audience) and lets one request be in flight per key.
type TokenCache struct {
	requester TokenRequester
	ttl       time.Duration
	now       func() time.Time

	mu     sync.RWMutex
	tokens map[tokenKey]cachedToken
	flight singleflight.Group

	requests atomic.Int64
}

// NewTokenCache caches tokens of lifetime ttl (the API server may shorten it).
func NewTokenCache(r TokenRequester, ttl time.Duration) *TokenCache {
	return &TokenCache{requester: r, ttl: ttl, now: time.Now, tokens: map[tokenKey]cachedToken{}}
}

// Token returns a cached token for the ServiceAccount, requesting a new one when
// it is missing or near expiry.
func (c *TokenCache) Token(ctx context.Context, ns, sa, audience string) (string, error) {
	key := tokenKey{ns, sa, audience}
	c.mu.RLock()
	t, ok := c.tokens[key]
	c.mu.RUnlock()
	if ok && t.fresh(c.now()) {
		return t.token, nil
	}
	v, err, _ := c.flight.Do(ns+"\x00"+sa+"\x00"+audience, func() (any, error) {
		// Detached from the first caller's context: others share this request.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		issued := c.now()
		rctx, span := startTokenRequest(rctx, ns, sa, audience, c.ttl)
		tok, exp, err := c.requester.RequestToken(rctx, ns, sa, audience, c.ttl)
		endTokenRequest(span, exp, err)
		c.requests.Add(1)
		if err != nil {
			return "", err
		}
		c.mu.Lock()
		c.tokens[key] = cachedToken{token: tok, issued: issued, expires: exp}
		c.mu.Unlock()
		return tok, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// Forget drops the cached tokens of a ServiceAccount.
func (c *TokenCache) Forget(ns, sa string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.tokens {
		if k.namespace == ns && k.serviceAccount == sa {
			delete(c.tokens, k)
		}
	}
}

// Requests counts TokenRequest calls made so far.
func (c *TokenCache) Requests() int64 { return c.requests.Load() }
