package emulator

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aztenant/aztenant/emulator/entra"
)

// Faults are injected deterministically: the same Seed and the same sequence of requests
// give the same failures, so a flaky-looking test can be replayed.
type Faults struct {
	// Seed for the error-rate draws.
	Seed uint64 `json:"seed,omitempty"`
	// Throttle applies ARM-like per-principal request budgets.
	Throttle *Throttle `json:"throttle,omitempty"`
	// ErrorRate is the fraction (0..1) of ARM requests answered with ErrorStatus.
	ErrorRate float64 `json:"errorRate,omitempty"`
	// ErrorStatus for ErrorRate; 500 when zero (503 also carries Retry-After).
	ErrorStatus int `json:"errorStatus,omitempty"`
	// Latency is added to every ARM request before it is handled.
	Latency Duration `json:"latency,omitempty"`
	// OperationDuration, when set, overrides the duration of every long-running operation.
	OperationDuration Duration `json:"operationDuration,omitempty"`
	// FailNext fails the next Count matching requests or operations.
	FailNext []FailRule `json:"failNext,omitempty"`
	// EntraUnavailable answers every Entra ID request (discovery, keys, token)
	// with 503 temporarily_unavailable, as in an Entra outage. ARM keeps
	// accepting the tokens it issued before.
	EntraUnavailable bool `json:"entraUnavailable,omitempty"`
	// EntraClockSkew moves Entra's clock forward when it checks a client
	// assertion's validity window: a ServiceAccount token looks that much
	// older, so one a client cached expires early (AADSTS700024).
	EntraClockSkew Duration `json:"entraClockSkew,omitempty"`
}

// Throttle is a budget of reads and writes per principal per fixed window, like ARM's
// per-principal limits. Beyond it ARM answers 429 with Retry-After until the window ends.
type Throttle struct {
	Reads  int      `json:"reads"`  // GET/HEAD per window; 0 = unlimited
	Writes int      `json:"writes"` // PUT/PATCH/POST/DELETE per window; 0 = unlimited
	Window Duration `json:"window"` // one hour when zero, like ARM
}

// FailRule fails requests (or, with Operation, the long-running operation they start) for
// a resource type and method.
type FailRule struct {
	ResourceType string `json:"resourceType,omitempty"` // full type, case-insensitive; "" = any
	Method       string `json:"method,omitempty"`       // "" = any
	Count        int    `json:"count"`
	Status       int    `json:"status,omitempty"` // 500 when zero
	Code         string `json:"code,omitempty"`   // ARM error code; derived from Status when empty
	Message      string `json:"message,omitempty"`
	// Operation lets the request succeed but makes its long-running operation end Failed
	// (for types answering synchronously the request itself fails).
	Operation bool `json:"operation,omitempty"`
}

// faultState is the live fault configuration plus its counters.
type faultState struct {
	mu      sync.Mutex
	cfg     Faults
	rng     *rand.Rand
	windows map[string]*budgetWindow // by principal object ID
	rules   []FailRule               // remaining counts
}

type budgetWindow struct {
	start         time.Time
	reads, writes int
}

func newFaultState(f Faults) *faultState {
	fs := &faultState{}
	fs.set(f)
	return fs
}

func (fs *faultState) set(f Faults) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.cfg = f
	fs.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	fs.windows = map[string]*budgetWindow{}
	fs.rules = append([]FailRule(nil), f.FailNext...)
}

func (fs *faultState) get() Faults {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.cfg
	f.FailNext = append([]FailRule(nil), fs.rules...)
	return f
}

func (fs *faultState) latency() time.Duration {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return time.Duration(fs.cfg.Latency)
}

func (fs *faultState) operationDuration() (time.Duration, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return time.Duration(fs.cfg.OperationDuration), fs.cfg.OperationDuration > 0
}

func isRead(method string) bool { return method == http.MethodGet || method == http.MethodHead }

// throttle spends one unit of the principal's budget; it returns a 429 when none is left.
func (fs *faultState) throttle(principal, method string, now time.Time) *apiError {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	t := fs.cfg.Throttle
	if t == nil || (t.Reads == 0 && t.Writes == 0) {
		return nil
	}
	window := time.Duration(t.Window)
	if window <= 0 {
		window = time.Hour
	}
	w := fs.windows[principal]
	if w == nil || now.Sub(w.start) >= window {
		w = &budgetWindow{start: now}
		fs.windows[principal] = w
	}
	limit, used := t.Writes, &w.writes
	kind := "writes"
	if isRead(method) {
		limit, used, kind = t.Reads, &w.reads, "reads"
	}
	if limit == 0 {
		return nil
	}
	if *used >= limit {
		e := armErr(http.StatusTooManyRequests, "TooManyRequests",
			"Number of %s requests for principal '%s' exceeded the limit of '%d' for time interval '%s'. Please try again after '%s'.",
			kind, principal, limit, window, w.start.Add(window).Sub(now).Round(time.Millisecond))
		e.RetryAfter = w.start.Add(window).Sub(now)
		return e
	}
	*used++
	return nil
}

// injectError draws against ErrorRate and consumes FailNext rules that match a request.
// operation reports a rule that fails the request's long-running operation instead.
func (fs *faultState) injectError(fullType, method string) (err *apiError, operation *FailRule, fault string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i := range fs.rules {
		r := &fs.rules[i]
		if r.Count <= 0 || (r.Method != "" && !strings.EqualFold(r.Method, method)) ||
			(r.ResourceType != "" && !strings.EqualFold(r.ResourceType, fullType)) {
			continue
		}
		r.Count--
		if r.Operation {
			cp := *r
			return nil, &cp, "fail-next"
		}
		return ruleError(*r), nil, "fail-next"
	}
	if fs.cfg.ErrorRate > 0 && fs.rng.Float64() < fs.cfg.ErrorRate {
		status := fs.cfg.ErrorStatus
		if status == 0 {
			status = http.StatusInternalServerError
		}
		return ruleError(FailRule{Status: status, Message: "Injected failure (error rate)."}), nil, "error-rate"
	}
	return nil, nil, ""
}

func ruleError(r FailRule) *apiError {
	status := r.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	code := r.Code
	if code == "" {
		switch status {
		case http.StatusTooManyRequests:
			code = "TooManyRequests"
		case http.StatusServiceUnavailable:
			code = "ServiceUnavailable"
		case http.StatusConflict:
			code = "Conflict"
		default:
			if status >= 500 {
				code = "InternalServerError"
			} else {
				code = "BadRequest"
			}
		}
	}
	msg := r.Message
	if msg == "" {
		msg = "Injected failure."
	}
	e := armErr(status, code, "%s", msg)
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		e.RetryAfter = 10 * time.Millisecond
	}
	return e
}

// entraNow is the time Entra checks assertion validity against.
func (fs *faultState) entraNow() time.Time {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return time.Now().Add(time.Duration(fs.cfg.EntraClockSkew))
}

// serveEntraOutage answers an Entra request with 503 when EntraUnavailable is
// set, auditing token requests; it reports whether it answered.
func (e *Emulator) serveEntraOutage(w http.ResponseWriter, r *http.Request, tokenRequest bool) bool {
	e.faults.mu.Lock()
	down := e.faults.cfg.EntraUnavailable
	e.faults.mu.Unlock()
	if !down {
		return false
	}
	if tokenRequest {
		// The client is named so tests can count each identity's attempts.
		r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequestBodySize)
		_ = r.ParseForm()
		e.audit.record(AuditEntry{Time: time.Now(), Service: "entra", Method: r.Method, Path: r.URL.Path,
			ClientID: r.PostForm.Get("client_id"), Status: http.StatusServiceUnavailable, ErrorCode: "AADSTS90033", Fault: "entra-unavailable"})
	}
	w.Header().Set("Retry-After", "1")
	writeEntraError(w, &entra.Error{Status: http.StatusServiceUnavailable, Kind: "temporarily_unavailable", AADSTS: 90033,
		Description: "A transient error has occurred. Please try again."})
	return true
}
