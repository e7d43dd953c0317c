package kinds

import (
	"encoding/json"
)

// The runtime of the adapters kindgen writes (zz_generated_*.go): their specs are ARM's
// create body with `properties` flattened into each object, as ASO does, so Desired puts
// the flattened fields back under `properties` (armShape says which) and Observe flattens
// the GET body into the status.

// armShape says, for one object of a spec, which of its JSON fields ARM nests under
// `properties` and the shapes of its nested objects (of each element, for lists).
type armShape struct {
	props  []string
	fields map[string]*armShape
}

// specBody is a generated spec as an ARM body: its JSON without the fields aztenant adds
// (owner, azureName, operatorSpec; location and tags the adapter sets itself), nested as
// ARM expects.
func specBody(spec any, s *armShape) (map[string]any, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	body := map[string]any{}
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, err
	}
	for _, k := range []string{"owner", "azureName", "operatorSpec", "location", "tags"} {
		delete(body, k)
	}
	nest(body, s)
	return body, nil
}

// nest moves s's properties of m under m["properties"], depth first.
func nest(m map[string]any, s *armShape) {
	if s == nil {
		return
	}
	for k, sub := range s.fields {
		switch v := m[k].(type) {
		case map[string]any:
			nest(v, sub)
		case []any:
			for _, e := range v {
				if em, ok := e.(map[string]any); ok {
					nest(em, sub)
				}
			}
		}
	}
	props := map[string]any{}
	for _, k := range s.props {
		if v, ok := m[k]; ok {
			props[k] = v
			delete(m, k)
		}
	}
	if len(props) > 0 {
		m["properties"] = props
	}
}

// observeInto decodes an ARM body, flattened, into a generated status. Fields the status
// does not have are ignored, and so is a value of an unexpected type: Observe reports what
// it can.
func observeInto(actual map[string]any, status any) {
	data, err := json.Marshal(flatten(actual))
	if err != nil {
		return
	}
	_ = json.Unmarshal(data, status)
}

// flatten copies v with every `properties` object merged into its parent (a field of the
// parent wins over one of its properties), as the generated types flatten them.
func flatten(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if k != "properties" {
				out[k] = flatten(e)
			}
		}
		if p, ok := t["properties"].(map[string]any); ok {
			for k, e := range flatten(p).(map[string]any) {
				if _, taken := out[k]; !taken {
					out[k] = e
				}
			}
		} else if p, ok := t["properties"]; ok {
			out["properties"] = p
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = flatten(e)
		}
		return out
	}
	return v
}
