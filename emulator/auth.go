package emulator

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
)

// caller is the authenticated principal of an ARM request, from its bearer token.
type caller struct {
	oid, appid, tid string
	exp             time.Time
}

// tokenCache remembers verified tokens so the hot path does not verify an RSA signature on
// every request. It is bounded: when full it starts over.
type tokenCache struct {
	mu sync.RWMutex
	m  map[string]*caller
}

const tokenCacheSize = 4096

func (c *tokenCache) get(tok string) *caller {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[tok]
}

func (c *tokenCache) put(tok string, cl *caller) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= tokenCacheSize {
		c.m = make(map[string]*caller, 64)
	}
	c.m[tok] = cl
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// authenticate validates the bearer token: signature by the emulator's key, an ARM audience
// and expiry. Failures are 401s with a WWW-Authenticate challenge as ARM sends them.
func (e *Emulator) authenticate(r *http.Request) (*caller, *apiError) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, armErr(http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
	}
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || tok == "" {
		return nil, armErr(http.StatusUnauthorized, "AuthenticationFailedInvalidHeader", "Authentication failed. The 'Authorization' header is provided in an invalid format.")
	}
	now := time.Now()
	if c := e.tokens.get(tok); c != nil {
		if now.After(c.exp) {
			return nil, expiredToken(c.exp, now)
		}
		return c, nil
	}
	var claims struct {
		jwt.Claims
		OID   string `json:"oid"`
		AppID string `json:"appid"`
		TID   string `json:"tid"`
	}
	if e.signer.Verify(tok, &claims) != nil {
		return nil, armErr(http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid.")
	}
	c := &caller{oid: claims.OID, appid: claims.AppID, tid: claims.TID, exp: claims.Expiry.Time()}
	if now.After(c.exp) {
		return nil, expiredToken(c.exp, now)
	}
	// The emulator issues tokens for one resource, so aud is a single value.
	aud := strings.TrimSuffix(strings.Join(claims.Audience, ","), "/")
	okAud := false
	for _, a := range e.armAudiences {
		if strings.EqualFold(a, aud) {
			okAud = true
		}
	}
	if !okAud {
		return nil, armErr(http.StatusUnauthorized, "InvalidAuthenticationTokenAudience",
			"The access token has been obtained for wrong audience or resource '%s'. It should exactly match with one of the allowed audiences '%s'.", aud, strings.Join(e.armAudiences, "','"))
	}
	e.tokens.put(tok, c)
	return c, nil
}

func expiredToken(exp, now time.Time) *apiError {
	return armErr(http.StatusUnauthorized, "ExpiredAuthenticationToken",
		"The access token expiry UTC time '%s' is earlier than current UTC time '%s'.", exp.UTC().Format(time.RFC1123), now.UTC().Format(time.RFC1123))
}

// challenge is the WWW-Authenticate value ARM sends with a 401.
func (e *Emulator) challenge(r *http.Request, tenant string, err *apiError) string {
	if tenant == "" {
		tenant = "common"
	}
	return fmt.Sprintf(`Bearer authorization_uri="%s/%s", error="invalid_token", error_description=%q`,
		e.base(r), tenant, err.Message)
}
