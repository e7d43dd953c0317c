package emulator

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Switches for the answers of every write of a generated kind: from Azure's examples
// (answers_examples.go) and perturbed (Perturb), so a test of every kind is one setting.

// PerturbWrites answers every write of a generated kind (and of Types) through the
// transforms Perturb picks for its type and body, after any other answer. The transforms are picked at a
// resource's first write under the setting and kept for the resource: a later write of
// the same spec gets the same answer, and so does a PATCH or a PUT of the perturbed
// answer itself, since every operation is idempotent (writing an answer back is
// answered the same). Two resources of one type written with one body get the same
// transforms, as does a resource deleted and created again. A resource's later writes
// are not perturbed at paths its first write did not have. Changing the setting makes
// each resource pick again at its next write.
type PerturbWrites struct {
	// Seed is Perturb's seed.
	Seed uint64 `json:"seed"`
	// Ops are the operations Perturb may pick (every one when empty).
	Ops []AnswerOp `json:"ops,omitempty"`
	// Types are ARM resource types whose writes are perturbed too, besides the generated
	// kinds' (matched without case): those whose type behaviour is written by hand (type_*.go), such as
	// Microsoft.Resources/resourceGroups, whose type behaviour answers first.
	Types []string `json:"types,omitempty"`
}

// perturbs says whether p perturbs writes of the (lower-cased) type typeKey; generated
// says it is a generated kind's.
func (p *PerturbWrites) perturbs(typeKey string, generated bool) bool {
	return p != nil && (generated || slices.ContainsFunc(p.Types, func(t string) bool { return strings.EqualFold(t, typeKey) }))
}

func perturbKeyOf(p *PerturbWrites) string {
	if p == nil {
		return ""
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// SetAnswerFromExamples turns answers from Azure's documented examples on or off for the
// writes that follow (Config.AnswerFromExamples).
func (e *Emulator) SetAnswerFromExamples(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.examples = on
}

// AnswerFromExamples reports whether writes of generated kinds are answered from Azure's
// examples.
func (e *Emulator) AnswerFromExamples() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.examples
}

// SetPerturbWrites perturbs every later write of a generated kind as p says (nil: no
// more). Resources written before keep their answer until written again.
func (e *Emulator) SetPerturbWrites(p *PerturbWrites) error {
	if p != nil {
		for _, op := range p.Ops {
			if !slices.Contains(AnswerOps, op) {
				return fmt.Errorf("perturb: op %q is not one of %v", op, AnswerOps)
			}
		}
		for _, t := range p.Types {
			if strings.Count(t, "/") < 1 || strings.HasPrefix(t, "/") {
				return fmt.Errorf("perturb: type %q is not an ARM resource type such as Microsoft.Resources/resourceGroups", t)
			}
		}
		p = &PerturbWrites{Seed: p.Seed, Ops: slices.Clone(p.Ops), Types: slices.Clone(p.Types)}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.perturb, e.perturbKey = p, perturbKeyOf(p)
	return nil
}

// PerturbWrites is the perturbation in force, nil when writes are not perturbed.
func (e *Emulator) PerturbWrites() *PerturbWrites {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.perturb == nil {
		return nil
	}
	return &PerturbWrites{Seed: e.perturb.Seed, Ops: slices.Clone(e.perturb.Ops), Types: slices.Clone(e.perturb.Types)}
}

// Perturbations are the transforms Perturb picked for the resource id at its first
// write under the perturbation in force (PerturbWrites), which answer its writes since:
// none when writes are not perturbed or the resource was written before the setting,
// ErrNotFound when there is no such resource. A test names them when a kind writes
// again, so the failure says which Azure-like answer its kind did not take.
func (e *Emulator) Perturbations(id string) ([]AnswerTransform, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	r := e.lookupLocked(id)
	if r == nil {
		return nil, fmt.Errorf("resource %s: %w", id, ErrNotFound)
	}
	if e.perturb == nil || r.perturbKey != e.perturbKey {
		return []AnswerTransform{}, nil
	}
	out := make([]AnswerTransform, 0, len(r.perturbed))
	for _, c := range r.perturbed {
		out = append(out, c.AnswerTransform)
	}
	return out, nil
}

// perturbationsLocked are the transforms of a write of armType with request (its body as
// the client sent it, after a PATCH's merge) to the resource existing (nil on create):
// those the resource picked under the setting in force, else Perturb's pick now.
func (e *Emulator) perturbationsLocked(existing *resource, armType string, request map[string]any) ([]*compiledAnswer, string) {
	if e.perturb == nil {
		return nil, ""
	}
	if existing != nil && existing.perturbKey == e.perturbKey {
		return existing.perturbed, e.perturbKey
	}
	body, err := json.Marshal(request)
	if err != nil {
		return nil, e.perturbKey
	}
	ts, err := Perturb(e.perturb.Seed, armType, body, e.perturb.Ops...)
	if err != nil {
		return nil, e.perturbKey
	}
	var out []*compiledAnswer
	for _, t := range ts {
		if c, err := compileAnswer(t); err == nil {
			out = append(out, c)
		}
	}
	return out, e.perturbKey
}
