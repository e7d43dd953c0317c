package comparison

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/internal/testing/azureanswers"
)

// FuzzCompareAnswers compares bodies shaped like Azure's answers (its
// response examples, and nulls, numbers as strings, empty lists as null)
// as plan, observe and the listings do (Drift and Differences). It must
// not panic; drift and differences must agree on whether there is a
// difference; a body compared with itself, with a part of itself (a spec
// says less than Azure answers) or with itself as Azure may answer it
// (property names and strings in another casing, a location by display
// name, named lists in another order, keys Azure adds) has no difference.
func FuzzCompareAnswers(f *testing.F) {
	for _, b := range azureanswers.Bodies(f) {
		f.Add(b, b, "")
		for _, o := range azureanswers.OddShapes(b) {
			f.Add(o, b, "")
			f.Add(b, o, "properties.workloadProfiles")
		}
	}
	f.Add([]byte(`{"properties":{"rules":[{"name":"a","x":1},{"name":"A","x":2}]}}`), []byte(`{"properties":{"rules":[{"name":"a"}]}}`), "properties.rules")
	f.Fuzz(func(t *testing.T, desiredRaw, actualRaw []byte, open string) {
		var desired, actual map[string]any
		if json.Unmarshal(desiredRaw, &desired) != nil || json.Unmarshal(actualRaw, &actual) != nil {
			return
		}
		opens := Rules{OpenSets: []string{open}}
		first := Drift(desired, actual, opens)
		all := Differences(desired, actual, opens)
		if (first == "") != (len(all) == 0) {
			t.Fatalf("drift %q but differences %v:\ndesired %s\nactual  %s", first, all, desiredRaw, actualRaw)
		}
		for _, body := range []map[string]any{desired, actual} {
			same := cloneJSON(body).(map[string]any)
			if d := Differences(body, same, opens); len(d) > 0 {
				t.Fatalf("a body differs from itself at %v: %s", d, mustMarshal(body))
			}
			if p := Drift(body, same, opens); p != "" {
				t.Fatalf("a body drifts from itself at %s: %s", p, mustMarshal(body))
			}
			part := halfOf(body).(map[string]any)
			if d := Differences(part, body, opens); len(d) > 0 {
				t.Fatalf("a part of a body differs from it at %v:\npart %s\nbody %s", d, mustMarshal(part), mustMarshal(body))
			}
			answered := asAzureAnswers("", body).(map[string]any)
			if d := Differences(body, answered, opens); len(d) > 0 {
				t.Fatalf("a body differs from itself as Azure answers it at %v:\nbody     %s\nanswered %s", d, mustMarshal(body), mustMarshal(answered))
			}
		}
	})
}

// halfOf keeps every other key of each object (in sorted order), as a spec
// that says less than Azure answers; lists keep their elements.
func halfOf(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := map[string]any{}
		for i, k := range keys {
			if i%2 == 0 || strings.EqualFold(k, "name") {
				out[k] = halfOf(x[k])
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = halfOf(e)
		}
		return out
	}
	return v
}

// asAzureAnswers is v as Azure may answer a body it was sent: property names
// and strings in upper case (ARM treats names, enum values and IDs
// case-insensitively), a location by its display name, lists of named
// objects reversed (sets), and a key of its own added to every object.
func asAzureAnswers(path string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x)+1)
		rename := true // unless two names are one to ARM (a casing would merge them)
		for k := range x {
			for k2 := range x {
				rename = rename && (k == k2 || !strings.EqualFold(k, k2) && asciiUpper(k) != asciiUpper(k2))
			}
		}
		for k, e := range x {
			name := k
			if rename {
				name = asciiUpper(k)
			}
			out[name] = asAzureAnswers(Join(path, k), e)
		}
		if _, taken := lookupFoldOK(x, "provisioningState"); !taken {
			out["provisioningState"] = "Succeeded"
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = asAzureAnswers(path, e)
		}
		if _, named := namedElements(x, x); named {
			slices.Reverse(out)
		}
		return out
	case string:
		if strings.HasSuffix(path, "location") && x == "westus" {
			return "West US"
		}
		return asciiUpper(x)
	}
	return v
}

// asciiUpper upper-cases ASCII letters only: other letters' upper case may
// not fold back to them.
func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

func lookupFoldOK(m map[string]any, k string) (any, bool) {
	for mk, v := range m {
		if strings.EqualFold(mk, k) {
			return v, true
		}
	}
	return nil, false
}

func mustMarshal(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// cloneJSON copies a JSON-shaped value (maps, slices and scalars), as
// reconcilers' cloneJSON does.
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneJSON(e)
		}
		return out
	default:
		return v
	}
}
