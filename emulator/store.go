package emulator

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aztenant/aztenant/emulator/armpath"
)

// resource is one node of the ARM tree: a subscription, a resource group or a (child or
// extension) resource. The body is what GET returns; raw caches its JSON so reads are cheap.
type resource struct {
	id        string // casing of first creation
	key       string // lower-cased id
	typ       string // full type, casing of first creation
	parentKey string
	body      map[string]any
	raw       []byte
	secrets   map[string]string // e.g. storage keys: served by actions only, kept in state
	children  map[string]*resource
	op        *operation // in-flight long-running operation
	updated   time.Time
	// ficBusyUntil: a managed identity refuses another federated credential
	// write until then (Config.FICWriteSettle). Not persisted.
	ficBusyUntil time.Time
	// later are answer changes Azure makes after the first answer showing the
	// resource Succeeded (answers_apply.go); laterServed says that answer was
	// given; answerDone records the changes made, which later writes answer
	// at once. Not persisted.
	later       []*compiledAnswer
	laterServed atomic.Bool
	answerDone  map[string]bool
	// perturbed are the transforms Perturb picked at the resource's first write under
	// the perturbation setting perturbKey; its later writes keep them (answers_writes.go).
	// Not persisted.
	perturbed  []*compiledAnswer
	perturbKey string
	// sent is the body of the last write as the client sent it (a PATCH merged onto
	// the resource), before Azure's answer was made of it: what Azure got, for tests
	// whose answers are not the request's echo. Not persisted.
	sent []byte
}

func (r *resource) typeKey() string { return strings.ToLower(r.typ) }

// props returns body.properties, creating it when absent.
func (r *resource) props() map[string]any { return propsOf(r.body) }

func propsOf(body map[string]any) map[string]any {
	p, ok := body["properties"].(map[string]any)
	if !ok {
		p = map[string]any{}
		body["properties"] = p
	}
	return p
}

// refresh re-renders the cached JSON after the body changed.
func (r *resource) refresh() {
	r.raw, _ = json.Marshal(r.body)
	r.updated = time.Now()
}

// decodeObject parses a JSON object keeping numbers exact (json.Number) so large integers
// and decimals round-trip unchanged.
func decodeObject(b []byte) (map[string]any, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// cloneBody deep-copies a body through JSON, the simplest exact copy for JSON values.
func cloneBody(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	out, _ := decodeObject(b)
	return out
}

// mergePatch applies an RFC 7386 JSON merge patch to target in place and returns it.
func mergePatch(target map[string]any, patch map[string]any) map[string]any {
	if target == nil {
		target = map[string]any{}
	}
	for k, v := range patch {
		if v == nil {
			delete(target, k)
			continue
		}
		if pv, ok := v.(map[string]any); ok {
			tv, _ := target[k].(map[string]any)
			target[k] = mergePatch(tv, pv)
			continue
		}
		target[k] = v
	}
	return target
}

// lookupLocked finds a resource by ID, case-insensitively. Caller holds e.mu.
func (e *Emulator) lookupLocked(id string) *resource {
	if r := e.resources[strings.ToLower(armpath.NormalizeScope(id))]; r != nil {
		return r
	}
	// A custom role is one resource at every scope it is read at, kept under its
	// subscription as Azure keeps it (type_roledefinition.go): Role Definitions - Get
	// takes any {scope} (learn.microsoft.com/rest/api/authorization/role-definitions/get,
	// GET {scope}/providers/Microsoft.Authorization/roleDefinitions/{roleDefinitionId}), and
	// its example GetRoleDefinitionById.json (2022-04-01) answers the ID under the
	// subscription, whatever scope the definition was written at.
	if p := armpath.Parse(id); p.Last().TypeKey() == typeRoleDefinition && p.Subscription() != "" {
		return e.resources[strings.ToLower("/subscriptions/"+p.Subscription()+"/providers/Microsoft.Authorization/roleDefinitions/"+p.Last().Name)]
	}
	return nil
}

// insertLocked stores a new resource under its parent. Caller holds e.mu for writing.
func (e *Emulator) insertLocked(r *resource) {
	e.resources[r.key] = r
	if p := e.resources[r.parentKey]; p != nil {
		if p.children == nil {
			p.children = map[string]*resource{}
		}
		p.children[r.key] = r
	}
}

// removeLocked deletes r and everything below it (resource group deletion cascades, so does
// deleting an identity with federated credentials), running each type's removal hook.
func (e *Emulator) removeLocked(r *resource) {
	for _, c := range r.children {
		e.removeLocked(c)
	}
	if b := e.behaviours[r.typeKey()]; b != nil && b.removed != nil {
		b.removed(e, r)
	}
	if r.op != nil {
		e.finishOpLocked(r.op, opCanceled, nil)
	}
	delete(e.resources, r.key)
	if p := e.resources[r.parentKey]; p != nil {
		delete(p.children, r.key)
	}
}

// collectLocked appends resources of typeKey below r: direct children only, or the whole
// subtree when deep.
func collectLocked(r *resource, typeKey string, deep bool, out []*resource) []*resource {
	for _, c := range r.children {
		if typeKey == "" || c.typeKey() == typeKey {
			out = append(out, c)
		}
		if deep {
			out = collectLocked(c, typeKey, true, out)
		}
	}
	return out
}

// snapshotSecrets copies a secrets map for persistence.
func snapshotSecrets(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}
