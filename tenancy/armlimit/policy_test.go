package armlimit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// A 429 from ARM holds back the whole principal for the Retry-After ARM gave,
// not only the request that got it; other principals are unaffected.
func TestPolicySpreadsRetryAfterToThePrincipal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("retry-after-ms", "60000")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	l := New(DefaultOptions())
	pl := runtime.NewPipeline("test", "v0.1.0", runtime.PipelineOptions{PerRetry: []policy.Policy{l.Policy("team-a")}},
		&policy.ClientOptions{Transport: srv.Client(), Retry: policy.RetryOptions{MaxRetries: -1}})
	req, err := runtime.NewRequest(context.Background(), http.MethodPut, srv.URL+"/subscriptions/x")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := pl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if l.Allow("team-a", true) {
		t.Error("team-a may write right after ARM asked it to wait a minute")
	}
	if !l.Allow("team-b", true) {
		t.Error("team-b is held back by team-a's throttling")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := l.Wait(ctx, "team-a", true); err == nil {
		t.Error("Wait returned before the Retry-After")
	}
}
