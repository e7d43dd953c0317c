package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// serveControl is the Control API under /_emulator/: plain JSON, no bearer token, meant for
// test harnesses and the demo on the same machine. Every endpoint mirrors a Go method.
//
//	GET    /_emulator/health                 {"status":"ok"}
//	GET    /_emulator/ca.pem                 the CA certificate
//	POST   /_emulator/seed                   Seed JSON (tenants, subscriptions, principals, trustedIssuers, roleAssignments)
//	POST   /_emulator/trusted-issuers        TrustedIssuer JSON
//	GET|PUT|DELETE /_emulator/faults         Faults JSON (PUT replaces, DELETE clears)
//	PUT    /_emulator/lro/{type}             LROConfig JSON for a resource type
//	GET|PUT|DELETE /_emulator/answers        answer transforms: a JSON array (PUT replaces, DELETE clears)
//	GET|PUT /_emulator/examples              {"enabled": bool}: answer generated kinds from Azure's examples
//	GET|PUT|DELETE /_emulator/perturb        PerturbWrites JSON {"seed": n, "ops": [...]} (null or DELETE: off)
//	GET    /_emulator/perturb/{ARM ID}       the transforms Perturb picked for that resource (a JSON array)
//	GET    /_emulator/audit?since=&service=&method=&principalId=&clientId=&limit=
//	GET    /_emulator/counters
//	POST   /_emulator/reset
//	POST   /_emulator/save                   write the state file now
//	GET|PATCH|DELETE /_emulator/resources/{ARM ID}   out-of-band read, JSON merge patch, delete
func (e *Emulator) serveControl(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/_emulator")
	route := r.Method + " " + p
	fail := func(status int, err error) {
		writeJSON(w, status, map[string]string{"error": err.Error()})
	}
	decode := func(v any) bool {
		dec := json.NewDecoder(io.LimitReader(r.Body, maxARMBodySize))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			fail(http.StatusBadRequest, fmt.Errorf("invalid JSON body: %w", err))
			return false
		}
		return true
	}
	switch {
	case route == "GET /health":
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "url": e.url})
	case route == "GET /ca.pem":
		w.Header().Set("Content-Type", "application/x-pem-file")
		w.Write(e.ca.CertPEM)
	case route == "POST /seed":
		var s Seed
		if !decode(&s) {
			return
		}
		if err := e.Seed(s); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "seeded"})
	case route == "POST /trusted-issuers":
		var ti TrustedIssuer
		if !decode(&ti) {
			return
		}
		if err := e.AddTrustedIssuer(ti); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "trusted"})
	case route == "GET /faults":
		writeJSON(w, http.StatusOK, e.Faults())
	case route == "PUT /faults":
		var f Faults
		if !decode(&f) {
			return
		}
		e.SetFaults(f)
		writeJSON(w, http.StatusOK, e.Faults())
	case route == "DELETE /faults":
		e.SetFaults(Faults{})
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPut && strings.HasPrefix(p, "/lro/"):
		var c LROConfig
		if !decode(&c) {
			return
		}
		e.SetLRO(strings.TrimPrefix(p, "/lro/"), c)
		writeJSON(w, http.StatusOK, c)
	case route == "GET /answers":
		writeJSON(w, http.StatusOK, e.AnswerTransforms())
	case route == "PUT /answers":
		var ts []AnswerTransform
		if !decode(&ts) {
			return
		}
		if err := e.SetAnswerTransforms(ts...); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		writeJSON(w, http.StatusOK, e.AnswerTransforms())
	case route == "DELETE /answers":
		_ = e.SetAnswerTransforms()
		w.WriteHeader(http.StatusNoContent)
	case route == "GET /examples":
		writeJSON(w, http.StatusOK, map[string]bool{"enabled": e.AnswerFromExamples()})
	case route == "PUT /examples":
		var v struct {
			Enabled *bool `json:"enabled"`
		}
		if !decode(&v) {
			return
		}
		if v.Enabled == nil {
			fail(http.StatusBadRequest, errors.New(`want {"enabled": true} or {"enabled": false}`))
			return
		}
		e.SetAnswerFromExamples(*v.Enabled)
		writeJSON(w, http.StatusOK, map[string]bool{"enabled": e.AnswerFromExamples()})
	case route == "GET /perturb":
		writeJSON(w, http.StatusOK, e.PerturbWrites())
	case route == "PUT /perturb":
		var p PerturbWrites
		if !decode(&p) {
			return
		}
		if err := e.SetPerturbWrites(&p); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		writeJSON(w, http.StatusOK, e.PerturbWrites())
	case route == "DELETE /perturb":
		_ = e.SetPerturbWrites(nil)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/perturb/"):
		ts, err := e.Perturbations(strings.TrimPrefix(p, "/perturb"))
		if err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, ErrNotFound) {
				status = http.StatusNotFound
			}
			fail(status, err)
			return
		}
		writeJSON(w, http.StatusOK, ts)
	case route == "GET /audit":
		q := r.URL.Query()
		since, _ := strconv.ParseUint(q.Get("since"), 10, 64)
		limit, _ := strconv.Atoi(q.Get("limit"))
		entries := e.Audit(AuditFilter{Since: since, Service: q.Get("service"), Method: q.Get("method"),
			PrincipalID: q.Get("principalId"), ClientID: q.Get("clientId"), Limit: limit})
		if entries == nil {
			entries = []AuditEntry{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"value": entries})
	case route == "GET /counters":
		writeJSON(w, http.StatusOK, e.Counters())
	case route == "POST /reset":
		if err := e.Reset(); err != nil {
			fail(http.StatusInternalServerError, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "reset"})
	case route == "POST /save":
		if err := e.SaveState(); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "saved"})
	case strings.HasPrefix(p, "/resources/"):
		e.serveControlResource(w, r, strings.TrimPrefix(p, "/resources"))
	default:
		fail(http.StatusNotFound, fmt.Errorf("no control endpoint %s", route))
	}
}

func (e *Emulator) serveControlResource(w http.ResponseWriter, r *http.Request, id string) {
	var err error
	switch r.Method {
	case http.MethodGet:
		var raw json.RawMessage
		if raw, err = e.Resource(id); err == nil {
			writeJSON(w, http.StatusOK, raw)
			return
		}
	case http.MethodPatch:
		var patch []byte
		if patch, err = io.ReadAll(io.LimitReader(r.Body, maxARMBodySize)); err == nil {
			var raw json.RawMessage
			if raw, err = e.PatchResource(r.Context(), id, patch); err == nil {
				writeJSON(w, http.StatusOK, raw)
				return
			}
		}
	case http.MethodDelete:
		if err = e.DeleteResource(r.Context(), id); err == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	default:
		err = fmt.Errorf("method %s not allowed", r.Method)
	}
	status := http.StatusBadRequest
	if errors.Is(err, ErrNotFound) {
		status = http.StatusNotFound
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// SetFaults replaces the fault configuration and restarts its budgets and random sequence.
func (e *Emulator) SetFaults(f Faults) { e.faults.set(f) }

// Faults returns the live fault configuration (FailNext shows remaining counts).
func (e *Emulator) Faults() Faults { return e.faults.get() }

// Audit returns audit entries, oldest first.
func (e *Emulator) Audit(f AuditFilter) []AuditEntry { return e.audit.entries(f) }

// AuditSpan is the Seq of the newest audit entry recorded and of the oldest the ring
// still holds (0 when it holds none): a reader counting calls since a Seq before oldest-1 would miss
// some (Config.AuditSize bounds the ring).
func (e *Emulator) AuditSpan() (newest, oldest uint64) { return e.audit.span() }

// Counters returns call totals since start or the last Reset.
func (e *Emulator) Counters() Counters { return e.audit.snapshot() }

// Reset returns the emulator to its state right after New: resources, operations, run-time
// LRO overrides, faults, audit log and counters are cleared, the answer transforms are
// Config.Answers again, answers from examples and perturbed writes as Config says, and
// Config.Seed is applied again. Trusted issuers added later stay trusted.
func (e *Emulator) Reset() error {
	e.mu.Lock()
	e.resetStateLocked()
	e.answers = e.cfgAnswers
	e.examples = e.cfg.AnswerFromExamples
	e.perturb, e.perturbKey = e.cfg.PerturbWrites, perturbKeyOf(e.cfg.PerturbWrites)
	e.mu.Unlock()
	e.faults.set(e.cfg.Faults)
	e.audit.reset()
	return e.Seed(e.cfg.Seed)
}

// Resource returns a resource's ARM body by ID (case-insensitive), bypassing RBAC.
func (e *Emulator) Resource(id string) (json.RawMessage, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	r := e.lookupLocked(id)
	if r == nil {
		return nil, fmt.Errorf("resource %s: %w", id, ErrNotFound)
	}
	return append(json.RawMessage(nil), r.raw...), nil
}

// ResourceBody is Resource decoded: the resource's body as a JSON object.
func (e *Emulator) ResourceBody(id string) (map[string]any, error) {
	raw, err := e.Resource(id)
	if err != nil {
		return nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("resource %s: %w", id, err)
	}
	return body, nil
}

// SentBody is the body of the resource's last write as the client sent it (a PATCH
// merged onto the resource), before the answer was made of it: what Azure got. With
// answers from examples or perturbations, it is not what ResourceBody answers.
func (e *Emulator) SentBody(id string) (map[string]any, error) {
	e.mu.RLock()
	r := e.lookupLocked(id)
	var sent []byte
	if r != nil {
		sent = r.sent
	}
	e.mu.RUnlock()
	if r == nil {
		return nil, fmt.Errorf("resource %s: %w", id, ErrNotFound)
	}
	if sent == nil {
		return nil, fmt.Errorf("resource %s: not written through ARM since the emulator started", id)
	}
	var body map[string]any
	if err := json.Unmarshal(sent, &body); err != nil {
		return nil, fmt.Errorf("resource %s: %w", id, err)
	}
	return body, nil
}

// PatchResource applies a JSON merge patch (RFC 7386) to a resource's body as if someone
// edited it in the portal: no RBAC, no validation, no audit entry. id, name and type stay.
func (e *Emulator) PatchResource(ctx context.Context, id string, mergePatchJSON []byte) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	patch, err := decodeObject(mergePatchJSON)
	if err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.lookupLocked(id)
	if r == nil {
		return nil, fmt.Errorf("resource %s: %w", id, ErrNotFound)
	}
	body := mergePatch(cloneBody(r.body), patch)
	body["id"], body["name"], body["type"] = r.id, r.body["name"], r.typ
	r.body = body
	r.refresh()
	if b := e.behaviours[r.typeKey()]; b != nil && b.stored != nil {
		b.stored(e, r)
	}
	return append(json.RawMessage(nil), r.raw...), nil
}

// DeleteResource removes a resource and everything below it, out of band (no RBAC, no LRO).
func (e *Emulator) DeleteResource(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.lookupLocked(id)
	if r == nil {
		return fmt.Errorf("resource %s: %w", id, ErrNotFound)
	}
	if r.typeKey() == typeSubscription {
		return fmt.Errorf("resource %s: subscriptions cannot be deleted", id)
	}
	e.removeLocked(r)
	return nil
}
