package emulator

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aztenant/aztenant/emulator/armpath"
)

// maxRetainedOperations bounds how many finished operations stay pollable.
const maxRetainedOperations = 4096

const (
	opInProgress = "InProgress"
	opSucceeded  = "Succeeded"
	opFailed     = "Failed"
	opCanceled   = "Canceled"
)

// operation is a long-running write or delete. It completes lazily: the first request that
// arrives after doneAt settles it, so behaviour does not depend on timers.
type operation struct {
	id         string
	resKey     string
	resID      string
	delete     bool
	created    bool
	status     string
	doneAt     time.Time
	fail       *FailRule
	err        *apiError
	apiVersion string
	provider   string
	location   string
	// final is the status operationResults answers once it succeeded, from the SDK's
	// codes (shapes.go); 0: 204 for a delete, 200 with the resource for a write.
	final int
}

// SetLRO changes the long-running-operation behaviour of a resource type at run time.
func (e *Emulator) SetLRO(resourceType string, c LROConfig) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lro[strings.ToLower(resourceType)] = c
}

// FinishOperations makes every operation in progress due now: the next request settles
// it. A test holds an operation open with a long Duration and ends it with this when it
// is ready, instead of racing a short Duration against the operator. It is a test's
// control over the emulator's clock, like SetLRO, not a behaviour of Azure: an ARM
// operation ends on its own (its status then answers Succeeded, as the emulator's
// settle does).
func (e *Emulator) FinishOperations() {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	for _, op := range e.pending {
		if now.Before(op.doneAt) {
			op.doneAt = now
		}
	}
}

// FinishReplication ends Entra's replication of every principal created so far (see
// Config.PrincipalReplication): role assignments naming them without principalType
// succeed from now on. Like FinishOperations, it is a test's control, not an Azure
// behaviour: a test holds replication open (a long PrincipalReplication) until it has
// seen what it waits for, instead of racing a short window.
func (e *Emulator) FinishReplication() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range e.byObjectID {
		d.created = time.Time{}
	}
}

// lroForLocked resolves a type's LRO config: run-time override, then Config.LRO, then the
// type's own default, then synchronous.
func (e *Emulator) lroForLocked(typeKey string) LROConfig {
	var c LROConfig
	if b := e.behaviours[typeKey]; b != nil {
		c = b.lro
	}
	for k, v := range e.cfg.LRO {
		if strings.EqualFold(k, typeKey) {
			c = overlayLRO(c, v)
		}
	}
	if v, ok := e.lro[typeKey]; ok {
		c = overlayLRO(c, v)
	}
	if c.Write == "" {
		c.Write = LROSync
	}
	if c.Delete == "" {
		c.Delete = LROSync
	}
	if d, ok := e.faults.operationDuration(); ok {
		c.Duration = Duration(d)
	}
	return c
}

func overlayLRO(base, over LROConfig) LROConfig {
	if over.Write != "" {
		base.Write = over.Write
	}
	if over.Update != "" {
		base.Update = over.Update
	}
	if over.CreateStatus != 0 {
		base.CreateStatus = over.CreateStatus
	}
	if over.Delete != "" {
		base.Delete = over.Delete
	}
	if over.Duration != 0 {
		base.Duration = over.Duration
	}
	return base
}

func (e *Emulator) startOpLocked(r *resource, del, created bool, dur time.Duration, fail *FailRule, apiVersion string) *operation {
	provider, _, _ := strings.Cut(r.typ, "/")
	loc := strings.ToLower(str(r.body, "location"))
	if loc == "" {
		loc = "global"
	}
	op := &operation{
		id: newGUID(), resKey: r.key, resID: r.id, delete: del, created: created, status: opInProgress,
		doneAt: time.Now().Add(dur), fail: fail, apiVersion: apiVersion, provider: provider, location: loc,
	}
	r.op = op
	e.ops[op.id] = op
	e.pending[op.id] = op
	e.pendingN.Add(1)
	e.opOrder = append(e.opOrder, op.id)
	if len(e.opOrder) > maxRetainedOperations {
		drop := e.opOrder[0]
		e.opOrder = e.opOrder[1:]
		if o := e.ops[drop]; o != nil && o.status == opInProgress {
			e.opOrder = append(e.opOrder, drop) // still pollable; evict once finished
		} else {
			delete(e.ops, drop)
		}
	}
	return op
}

// settle completes due operations. It is cheap when nothing is pending, which keeps the
// read path lock-free of writers in benchmarks.
func (e *Emulator) settle(now time.Time) {
	if e.pendingN.Load() == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, op := range e.pending {
		if !now.Before(op.doneAt) {
			e.completeLocked(op)
		}
	}
}

func (e *Emulator) completeLocked(op *operation) {
	r := e.resources[op.resKey]
	if op.fail != nil {
		if r != nil {
			r.props()["provisioningState"] = opFailed
			r.refresh()
		}
		e.finishOpLocked(op, opFailed, ruleError(*op.fail))
		return
	}
	if r != nil {
		if op.delete {
			r.op = nil // finished before removal so removeLocked does not cancel it
			e.removeLocked(r)
		} else {
			r.props()["provisioningState"] = opSucceeded
			r.refresh()
		}
	}
	e.finishOpLocked(op, opSucceeded, nil)
}

func (e *Emulator) finishOpLocked(op *operation, status string, err *apiError) {
	if op.status != opInProgress {
		return
	}
	op.status, op.err = status, err
	if r := e.resources[op.resKey]; r != nil && r.op == op {
		r.op = nil
	}
	if _, ok := e.pending[op.id]; ok {
		delete(e.pending, op.id)
		e.pendingN.Add(-1)
	}
}

func (op *operation) pollPath(kind string) string {
	sub := armpath.Parse(op.resID).Subscription()
	return "/subscriptions/" + sub + "/providers/" + op.provider + "/locations/" + op.location + "/" + kind + "/" + op.id +
		"?api-version=" + url.QueryEscape(op.apiVersion)
}

// setOpHeaders adds the polling headers of a style to a response.
func (e *Emulator) setOpHeaders(w http.ResponseWriter, r *http.Request, op *operation, style LROStyle) {
	h := w.Header()
	base := e.base(r)
	switch style {
	case LROAsyncOperation:
		h.Set("Azure-AsyncOperation", base+op.pollPath("operationStatuses"))
		if op.delete {
			h.Set("Location", base+op.pollPath("operationResults"))
		}
	case LROAsyncOperationLocation:
		h.Set("Azure-AsyncOperation", base+op.pollPath("operationStatuses"))
		h.Set("Location", base+op.pollPath("operationResults"))
	case LROLocation:
		h.Set("Location", base+op.pollPath("operationResults"))
	case LROProvisioningState:
		// Writes are polled through the resource's own provisioningState; a Location header
		// would make clients poll that instead.
		if op.delete {
			h.Set("Location", base+op.pollPath("operationResults"))
		}
	}
	setRetryAfter(h, time.Duration(e.cfg.PollRetryAfter))
}

// serveOperation answers polls of operationStatuses (Azure-AsyncOperation) and
// operationResults (Location).
func (e *Emulator) serveOperation(w http.ResponseWriter, r *http.Request, opID string, results bool) {
	e.mu.RLock()
	op := e.ops[opID]
	var snapshot operation
	var body []byte
	if op != nil {
		snapshot = *op
		if res := e.resources[op.resKey]; res != nil {
			body = res.raw
			if results && op.status == opSucceeded && !op.delete {
				e.answeredLocked(res)
			}
		}
	}
	e.mu.RUnlock()
	if op == nil {
		writeARMError(w, armErr(http.StatusNotFound, "OperationNotFound", "The operation '%s' could not be found.", opID))
		return
	}
	if snapshot.status == opInProgress {
		setRetryAfter(w.Header(), time.Duration(e.cfg.PollRetryAfter))
	}
	if !results {
		out := map[string]any{"id": r.URL.Path, "name": snapshot.id, "status": snapshot.status}
		if snapshot.err != nil {
			out["error"] = map[string]string{"code": snapshot.err.Code, "message": snapshot.err.Message}
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	switch {
	case snapshot.status == opInProgress:
		w.Header().Set("Location", e.base(r)+r.URL.RequestURI())
		w.WriteHeader(http.StatusAccepted)
	case snapshot.err != nil:
		// The SDK treats 408/429/5xx on a poll as transient and would poll forever, so a
		// failed operation answers a terminal status carrying the injected code.
		e := *snapshot.err
		if e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500 {
			e.Status = http.StatusBadRequest
		}
		e.RetryAfter = 0
		writeARMError(w, &e)
	case snapshot.delete && snapshot.final != 0:
		w.WriteHeader(snapshot.final)
	case snapshot.delete || body == nil:
		w.WriteHeader(http.StatusNoContent)
	case snapshot.final != 0:
		writeJSON(w, snapshot.final, body)
	default:
		writeJSON(w, http.StatusOK, body)
	}
}
