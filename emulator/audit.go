package emulator

import (
	"maps"
	"sync"
	"time"
)

// AuditEntry records one call. Tokens, assertions and secrets are never recorded.
type AuditEntry struct {
	Seq     uint64    `json:"seq"`
	Time    time.Time `json:"time"`
	Service string    `json:"service"` // "arm" or "entra"
	Method  string    `json:"method"`
	Path    string    `json:"path"` // without the query string
	Status  int       `json:"status"`
	// LatencyMS is the server-side time spent, including injected latency.
	LatencyMS float64 `json:"latencyMs"`
	// PrincipalID is the object ID of the caller (ARM) or of the identity a token was
	// issued to (Entra).
	PrincipalID string `json:"principalId,omitempty"`
	// ClientID is the appid claim (ARM) or the client_id parameter (Entra).
	ClientID string `json:"clientId,omitempty"`
	TenantID string `json:"tenantId,omitempty"`
	// Subject is the subject of a presented client assertion (Entra).
	Subject string `json:"subject,omitempty"`
	// ErrorCode is the ARM error code or "AADSTS<n>" of a failed call.
	ErrorCode string `json:"errorCode,omitempty"`
	// Fault names an injected fault: "throttled", "error-rate", "fail-next".
	Fault string `json:"fault,omitempty"`
	// UserAgent is the caller's (ARM): it tells apart callers sharing a
	// principal, such as operator replicas.
	UserAgent string `json:"userAgent,omitempty"`
}

// AuditFilter selects audit entries; zero fields match everything.
type AuditFilter struct {
	Since       uint64 // only entries with Seq > Since
	Service     string
	Method      string
	PrincipalID string
	ClientID    string
	Limit       int // newest entries win when set
}

func (f AuditFilter) match(e *AuditEntry) bool {
	return e.Seq > f.Since &&
		(f.Service == "" || f.Service == e.Service) &&
		(f.Method == "" || f.Method == e.Method) &&
		(f.PrincipalID == "" || f.PrincipalID == e.PrincipalID) &&
		(f.ClientID == "" || f.ClientID == e.ClientID)
}

// Counters are totals since start or the last Reset; unlike the audit log they are never
// truncated, so benchmarks and long e2e runs can count calls without unbounded memory.
type Counters struct {
	Requests       uint64            `json:"requests"`
	ARM            uint64            `json:"arm"`
	Entra          uint64            `json:"entra"`
	TokensIssued   uint64            `json:"tokensIssued"`
	TokenFailures  uint64            `json:"tokenFailures"`
	Throttled      uint64            `json:"throttled"`
	InjectedErrors uint64            `json:"injectedErrors"`
	ByStatus       map[string]uint64 `json:"byStatus"`    // "200", "404" ...
	ByMethod       map[string]uint64 `json:"byMethod"`    // "arm GET", "entra POST" ...
	ByPrincipal    map[string]uint64 `json:"byPrincipal"` // object ID -> calls
}

// auditLog is a fixed-size ring buffer plus counters; memory stays flat however many calls
// are made.
type auditLog struct {
	mu       sync.Mutex
	ring     []AuditEntry
	next     int // index of the slot to write
	full     bool
	seq      uint64
	counters Counters
	// issued is kept apart from the entries, which never hold a secret.
	issued issuedValues
}

func newAuditLog(size int) *auditLog {
	if size <= 0 {
		size = 10000
	}
	a := &auditLog{ring: make([]AuditEntry, size)}
	a.resetCountersLocked()
	return a
}

func (a *auditLog) resetCountersLocked() {
	a.counters = Counters{ByStatus: map[string]uint64{}, ByMethod: map[string]uint64{}, ByPrincipal: map[string]uint64{}}
}

func (a *auditLog) record(e AuditEntry) uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	e.Seq = a.seq
	a.ring[a.next] = e
	a.next++
	if a.next == len(a.ring) {
		a.next, a.full = 0, true
	}
	c := &a.counters
	c.Requests++
	if e.Service == "entra" {
		c.Entra++
		if e.Status == 200 {
			c.TokensIssued++
		} else {
			c.TokenFailures++
		}
	} else {
		c.ARM++
	}
	switch e.Fault {
	case "throttled":
		c.Throttled++
	case "error-rate", "fail-next":
		c.InjectedErrors++
	}
	c.ByStatus[statusKey(e.Status)]++
	c.ByMethod[e.Service+" "+e.Method]++
	if e.PrincipalID != "" {
		c.ByPrincipal[e.PrincipalID]++
	}
	return e.Seq
}

// statusKey avoids strconv allocations for the common codes on the hot path.
func statusKey(s int) string {
	switch s {
	case 200:
		return "200"
	case 201:
		return "201"
	case 202:
		return "202"
	case 204:
		return "204"
	case 404:
		return "404"
	}
	return itoa(s)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func (a *auditLog) entries(f AuditFilter) []AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []AuditEntry
	visit := func(e *AuditEntry) {
		if e.Seq != 0 && f.match(e) {
			out = append(out, *e)
		}
	}
	if a.full {
		for i := a.next; i < len(a.ring); i++ {
			visit(&a.ring[i])
		}
	}
	for i := 0; i < a.next; i++ {
		visit(&a.ring[i])
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

func (a *auditLog) snapshot() Counters {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.counters
	c.ByStatus = maps.Clone(c.ByStatus)
	c.ByMethod = maps.Clone(c.ByMethod)
	c.ByPrincipal = maps.Clone(c.ByPrincipal)
	return c
}

// span is the Seq of the newest entry recorded and of the oldest the ring holds (0 when
// it holds none).
func (a *auditLog) span() (newest, oldest uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.full:
		return a.seq, a.ring[a.next].Seq
	case a.next > 0:
		return a.seq, a.ring[0].Seq
	}
	return a.seq, 0
}

func (a *auditLog) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.ring)
	a.next, a.full = 0, false
	a.resetCountersLocked()
	// seq keeps growing so a reader's "since" cursor stays meaningful across resets.
}
