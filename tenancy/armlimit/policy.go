package armlimit

import (
	"net/http"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Policy returns an azcore per-retry policy that spends key's read or write
// budget before each ARM attempt and, when ARM throttles anyway, holds back
// every worker using key for the Retry-After ARM asked for, instead of each
// worker finding out with a 429 of its own.
func (l *Limiter) Policy(key string) policy.Policy { return limitPolicy{l: l, key: key} }

type limitPolicy struct {
	l   *Limiter
	key string
}

func (p limitPolicy) Do(req *policy.Request) (*http.Response, error) {
	write := req.Raw().Method != http.MethodGet && req.Raw().Method != http.MethodHead
	if err := p.l.Wait(req.Raw().Context(), p.key, write); err != nil {
		return nil, err
	}
	resp, err := req.Next()
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
		p.l.Backoff(p.key, write, RetryAfter(resp, time.Second))
	}
	return resp, err
}

// RetryAfter reads how long ARM asked the caller to wait, preferring the
// millisecond headers the SDK also prefers; fallback when there is none.
func RetryAfter(resp *http.Response, fallback time.Duration) time.Duration {
	if resp == nil {
		return fallback
	}
	for _, h := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		if v, err := strconv.Atoi(resp.Header.Get(h)); err == nil && v > 0 {
			return time.Duration(v) * time.Millisecond
		}
	}
	if v, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && v > 0 {
		return time.Duration(v) * time.Second
	}
	return fallback
}
