package reconcilers

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// drift returns the first difference between what the user declared (desired,
// a PUT body) and what ARM reports (actual), as a dotted path, or "" when
// actual already holds everything desired says. Properties ARM adds (defaults,
// read-only outputs) are not differences; neither are the paths in ignore
// (write-only properties ARM never returns). Lists of objects with distinct
// names are matched by name, whatever order ARM returns them in.
func drift(desired, actual map[string]any, ignore []string) string {
	return driftWith(desired, actual, ignore, Facts{}, nil)
}

// driftWith is drift with a kind's facts (Facts.OpenSets: named lists where Azure
// may hold elements the spec does not name; Normalize, NotReturned and OpenValues:
// how Azure answers, normalize.go) and its own notion of equivalent strings.
func driftWith(desired, actual map[string]any, ignore []string, f Facts, eq func(path, desired, observed string) bool) string {
	skip := make(map[string]bool, len(ignore))
	for _, p := range ignore {
		skip[p] = true
	}
	openSet := make(map[string]bool, len(f.OpenSets))
	for _, p := range f.OpenSets {
		openSet[p] = true
	}
	// Tags compare like any object: those desired must be there with their
	// values; others (set in the portal, by Azure Policy, by other tools)
	// are not the spec's and are kept (see mergeTags). A tag removed from the
	// spec is drift through droppedTag.
	return (differ{skip: skip, open: openSet, eq: eq, ans: answerRulesOf(f)}).diff("", desired, actual)
}

type differ struct {
	skip, open map[string]bool
	eq         func(path, desired, observed string) bool
	// ans are the kind's facts about Azure's answers (normalize.go).
	ans answerRules
	// all, when set, collects every difference instead of stopping at the
	// first (observe mode shows them all).
	all *[]difference
}

// difference is one path where actual differs from desired, with both values
// (nil where one has none).
type difference struct {
	path            string
	desired, actual any
}

// report records a difference at path: the path, to stop at the first, or ""
// to go on collecting.
func (d differ) report(path string, want, got any) string {
	if d.all == nil {
		return path
	}
	*d.all = append(*d.all, difference{path: path, desired: want, actual: got})
	return ""
}

// differences is every difference between desired and actual, by path, with
// driftWith's rules.
func differences(desired, actual map[string]any, ignore []string, f Facts, eq func(path, desired, observed string) bool) []difference {
	d := differ{skip: map[string]bool{}, open: map[string]bool{}, eq: eq, ans: answerRulesOf(f), all: &[]difference{}}
	for _, p := range ignore {
		d.skip[p] = true
	}
	for _, p := range f.OpenSets {
		d.open[p] = true
	}
	d.diff("", desired, actual)
	out := *d.all
	sort.SliceStable(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func (d differ) diff(path string, want, got any) string {
	if d.skip[path] {
		return ""
	}
	if !d.ans.empty() && ((got == nil && d.ans.notAnswered(path)) || d.ans.equivalent(path, want, got)) {
		return "" // Azure's way of answering the spec (Facts.NotReturned, Normalize)
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			if len(w) == 0 && got == nil {
				return "" // ARM omits empty objects
			}
			return d.report(orRoot(path), want, got)
		}
		for k, wv := range w {
			if p := d.diff(join(path, k), wv, lookupFold(g, k)); p != "" {
				return p
			}
		}
		return "" // (differences sorts what it collects)
	case []any:
		g, ok := got.([]any)
		if len(w) == 0 && got == nil {
			return "" // ARM omits empty lists
		}
		if !ok {
			return d.report(orRoot(path), want, got)
		}
		if !d.ans.empty() {
			g = d.ans.withoutOpenValues(d.eq, path, w, g) // Facts.OpenValues
		}
		byName, named := namedElements(w, g)
		if len(g) != len(w) && !(named && d.open[path]) && (!named || d.all == nil) {
			return d.report(orRoot(path), want, got)
		}
		if named {
			for _, wv := range w {
				name := lookupFold(wv.(map[string]any), "name").(string)
				p := fmt.Sprintf("%s[name=%s]", path, name)
				gv, found := byName[strings.ToLower(name)]
				if !found {
					if p := d.report(p, wv, nil); p != "" {
						return p
					}
					continue
				}
				if p := d.diff(p, wv, gv); p != "" {
					return p
				}
			}
			if d.all != nil && !d.open[path] {
				// Collecting: the elements Azure has beyond the spec's, which a
				// write would remove.
				wanted := make(map[string]bool, len(w))
				for _, wv := range w {
					wanted[strings.ToLower(lookupFold(wv.(map[string]any), "name").(string))] = true
				}
				for _, gv := range g {
					if name := lookupFold(gv.(map[string]any), "name").(string); !wanted[strings.ToLower(name)] {
						d.report(fmt.Sprintf("%s[name=%s]", path, name), nil, gv)
					}
				}
			}
			return ""
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
			return d.report(orRoot(path), want, got)
		}
		if strings.HasSuffix(path, "location") {
			// ARM answers "westeurope" to "West Europe".
			if normalizeLocation(w) != normalizeLocation(g) {
				return d.report(path, want, got)
			}
			return ""
		}
		// ARM echoes enum values and IDs in its own casing.
		if !strings.EqualFold(w, g) && (d.eq == nil || !d.eq(path, w, g)) {
			return d.report(path, want, got)
		}
		return ""
	default:
		if !reflect.DeepEqual(numeric(want), numeric(got)) {
			return d.report(orRoot(path), want, got)
		}
		return ""
	}
}

// namedElements indexes got by lower-cased name when want and got are lists
// of objects each with a distinct "name" (agent pools, subnets, rules): such
// lists are sets keyed by name, which Azure may return in any order. Other
// lists, where order may mean something or nothing pairs the elements,
// compare by position.
func namedElements(want, got []any) (map[string]any, bool) {
	names := func(l []any) (map[string]any, bool) {
		m := make(map[string]any, len(l))
		for _, e := range l {
			o, _ := e.(map[string]any)
			n, _ := lookupFold(o, "name").(string)
			if n == "" {
				return nil, false
			}
			k := strings.ToLower(n) // ARM names are case-insensitive
			if _, dup := m[k]; dup {
				return nil, false
			}
			m[k] = e
		}
		return m, true
	}
	if _, ok := names(want); !ok {
		return nil, false
	}
	return names(got)
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
