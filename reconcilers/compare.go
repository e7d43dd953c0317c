package reconcilers

import (
	"fmt"
	"reflect"
	"strings"
)

// drift returns the first difference between what the user declared (desired,
// a PUT body) and what ARM reports (actual), as a dotted path, or "" when
// actual already holds everything desired says. Properties ARM adds (defaults,
// read-only outputs) are not differences; neither are the paths in ignore
// (write-only properties ARM never returns).
func drift(desired, actual map[string]any, ignore []string) string {
	return driftWith(desired, actual, ignore, nil)
}

// driftWith is drift with a kind's own notion of equivalent strings.
func driftWith(desired, actual map[string]any, ignore []string, eq func(path, desired, observed string) bool) string {
	skip := make(map[string]bool, len(ignore))
	for _, p := range ignore {
		skip[p] = true
	}
	if d := (differ{skip: skip, eq: eq}).diff("", desired, actual); d != "" {
		return d
	}
	// Tags are the user's whole set, not a subset: one added in the portal is drift too.
	if want, ok := desired["tags"].(map[string]any); ok {
		got, _ := lookupFold(actual, "tags").(map[string]any)
		for k := range got {
			if _, ok := want[k]; !ok {
				return "tags." + k
			}
		}
	}
	return ""
}

type differ struct {
	skip map[string]bool
	eq   func(path, desired, observed string) bool
}

func (d differ) diff(path string, want, got any) string {
	if d.skip[path] {
		return ""
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			if len(w) == 0 && got == nil {
				return "" // ARM omits empty objects
			}
			return orRoot(path)
		}
		for k, wv := range w {
			if p := d.diff(join(path, k), wv, lookupFold(g, k)); p != "" {
				return p
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if len(w) == 0 && got == nil {
			return "" // ARM omits empty lists
		}
		if !ok || len(g) != len(w) {
			return orRoot(path)
		}
		for i := range w {
			if p := d.diff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); p != "" {
				return p
			}
		}
		return ""
	case nil:
		return ""
	case string:
		g, ok := got.(string)
		if !ok {
			return orRoot(path)
		}
		if strings.HasSuffix(path, "location") {
			// ARM answers "westeurope" to "West Europe".
			if normalizeLocation(w) != normalizeLocation(g) {
				return path
			}
			return ""
		}
		// ARM echoes enum values and IDs in its own casing.
		if !strings.EqualFold(w, g) && (d.eq == nil || !d.eq(path, w, g)) {
			return path
		}
		return ""
	default:
		if !reflect.DeepEqual(numeric(want), numeric(got)) {
			return orRoot(path)
		}
		return ""
	}
}

// lookupFold finds k in m, case-insensitively as ARM treats property names.
func lookupFold(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	for mk, v := range m {
		if strings.EqualFold(mk, k) {
			return v
		}
	}
	return nil
}

func numeric(v any) any {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int32:
		return float64(n)
	case int64:
		return float64(n)
	}
	return v
}

func normalizeLocation(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", ""))
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func orRoot(p string) string {
	if p == "" {
		return "(body)"
	}
	return p
}
