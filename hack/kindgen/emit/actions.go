package emit

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// secretPlaceholder stands, in an emulated action's answer, for a secret the emulator
// makes up (and keeps) per resource.
const secretPlaceholder = "\x00secret"

// secretActions are the kind's POST actions that take no body and answer secrets (Cosmos
// DB's listKeys, a registry's listCredentials): the adapter reads them for the CEL
// exports (spec.operatorSpec.secretExpressions, `secret.<name>`).
func (k *Kind) secretActions() []model.Operation {
	var out []model.Operation
	for _, a := range k.Actions {
		if a.HTTPMethod != "POST" || (a.Request != nil && !a.RequestOptional) || a.Response == nil {
			continue
		}
		if k.holdsSecret(*a.Response, map[string]bool{}) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b model.Operation) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// holdsSecret reports whether a type, or one it holds, has a secret field.
func (k *Kind) holdsSecret(r model.TypeRef, seen map[string]bool) bool {
	for r.Kind == model.KindSlice || r.Kind == model.KindMap {
		r = *r.Elem
	}
	t := k.Types[r.Name]
	if r.Kind != model.KindNamed || t == nil || seen[r.Name] {
		return false
	}
	seen[r.Name] = true
	for _, f := range t.Fields {
		if f.Secret != nil || k.holdsSecret(f.Type, seen) {
			return true
		}
	}
	return false
}

// answerTemplate is an emulated answer of an action in the response type's shape: secrets
// are placeholders, names of listed keys are key1, key2, other strings "example".
func (k *Kind) answerTemplate(r model.TypeRef) string {
	v := k.sampleAnswer(r, map[string]bool{})
	data, _ := json.Marshal(v)
	return string(data)
}

func (k *Kind) sampleAnswer(r model.TypeRef, seen map[string]bool) any {
	switch r.Kind {
	case model.KindString:
		return "example"
	case model.KindSlice:
		var out []any
		for i := 0; i < 2; i++ {
			e := k.sampleAnswer(*r.Elem, seen)
			if m, ok := e.(map[string]any); ok {
				// Listed keys are named: by their enum's values (password, password2), or key1, key2.
				for _, key := range []string{"name", "keyName"} {
					if _, ok := m[key]; ok {
						m[key] = k.listedName(*r.Elem, key, i)
					}
				}
			}
			out = append(out, e)
		}
		return out
	case model.KindNamed:
		t := k.Types[r.Name]
		if t != nil && t.Enum != nil && len(t.Enum.Values) > 0 {
			return t.Enum.Values[0].Value
		}
		if t == nil || seen[r.Name] || t.Shape != model.ShapeStruct {
			return nil
		}
		seen[r.Name] = true
		defer delete(seen, r.Name)
		out := map[string]any{}
		for _, f := range t.Fields {
			if f.JSON == "" {
				continue
			}
			if f.Secret != nil && f.Type.Kind == model.KindString {
				out[f.JSON] = secretPlaceholder
				continue
			}
			if v := k.sampleAnswer(f.Type, seen); v != nil {
				out[f.JSON] = v
			}
		}
		return out
	}
	return nil
}

// listedName is the name of the i-th listed key: its enum's i-th value, or key1, key2.
func (k *Kind) listedName(elem model.TypeRef, field string, i int) string {
	if t := k.Types[elem.Name]; t != nil {
		for _, f := range t.Fields {
			if f.JSON != field || f.Type.Kind != model.KindNamed {
				continue
			}
			if e := k.Types[f.Type.Name]; e != nil && e.Enum != nil && i < len(e.Enum.Values) {
				return e.Enum.Values[i].Value
			}
		}
	}
	return "key" + string(rune('1'+i))
}
