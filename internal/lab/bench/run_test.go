package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/aztenant/aztenant/emulator"
)

// A call of the throttled budget sent after a 429 and before the window
// ends ignores Retry-After; calls already in flight (grace), calls of the
// other budget and calls of the next window do not.
func TestRetryAfterStats(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int, method string, status int) emulator.AuditEntry {
		return emulator.AuditEntry{Time: t0.Add(time.Duration(ms) * time.Millisecond), Method: method, Status: status}
	}
	entries := []emulator.AuditEntry{
		at(0, "GET", 200),
		at(100, "PUT", 429),  // the write budget is spent until 1000
		at(150, "PUT", 201),  // in flight: within the grace
		at(500, "PUT", 429),  // ignored Retry-After
		at(600, "GET", 200),  // the read budget is another one
		at(1200, "PUT", 201), // next window
	}
	st := retryAfterStats(entries, time.Second, 100*time.Millisecond)
	if st != (raStats{calls: 6, throttled: 2, violations: 1}) {
		t.Errorf("got %+v, want 6 calls, 2 throttled, 1 violation", st)
	}
}

// The API server's and controller-runtime's text format: labels with
// escapes and commas, samples without labels, comments skipped.
func TestParseMetrics(t *testing.T) {
	m, err := ParseMetrics(strings.NewReader(`# HELP apiserver_request_total x
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",resource="serviceaccounts",subresource="token",verb="POST"} 20
apiserver_request_total{code="201",resource="serviceaccounts",subresource="token",verb="POST",note="a \"b\", c"} 2
apiserver_request_total{code="200",resource="serviceaccounts",subresource="",verb="GET"} 7
process_cpu_seconds_total 1.5e+00
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.TokenRequests(); got != 22 {
		t.Errorf("TokenRequests %v, want 22", got)
	}
	if got := m.Sum("apiserver_request_total", map[string]string{"note": `a "b", c`}); got != 2 {
		t.Errorf("escaped label: %v", got)
	}
	if got := m.Sum("process_cpu_seconds_total", nil); got != 1.5 {
		t.Errorf("unlabelled sample %v", got)
	}
}

// List calls are told from reads of one resource by their paths.
func TestIsCollection(t *testing.T) {
	const rg = "/subscriptions/s/resourceGroups/rg"
	for path, want := range map[string]bool{
		"/subscriptions/s/resourceGroups": true,
		rg:                                false,
		rg + "/providers/Microsoft.Storage/storageAccounts":                                               true,
		rg + "/providers/Microsoft.Storage/storageAccounts/sa":                                            false,
		rg + "/providers/Microsoft.Network/virtualNetworks/vn/subnets":                                    true,
		rg + "/providers/Microsoft.Network/virtualNetworks/vn/subnets/a":                                  false,
		rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/u/federatedIdentityCredentials": true,
	} {
		if got := IsCollection(path); got != want {
			t.Errorf("IsCollection(%s) = %v, want %v", path, got, want)
		}
	}
}
