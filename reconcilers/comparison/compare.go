package comparison

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Rules are what the comparison takes of a kind (reconcilers builds them from
// the kind's Facts and Hooks). The zero value compares with the comparison's
// own rules only: casing, locations, numbers, named lists as sets.
type Rules struct {
	// Ignore are paths never compared: the write-only ones, which ARM never
	// returns.
	Ignore []string
	// OpenSets are the paths of named lists where Azure may hold elements
	// the desired body does not name, managed elsewhere: the named ones are
	// compared, the others are no difference.
	OpenSets []string
	// Normalize, NotReturned and OpenValues are how Azure answers a write
	// (normalize.go, rules.go), by fact path: Normalize names the entry of the
	// normalisation table under which Azure's answer means the desired value;
	// a path of NotReturned absent from the answer is no difference; an
	// element of OpenValues Azure adds to a list is no difference.
	Normalize   map[string]Normalizer
	NotReturned []string
	OpenValues  map[string][]any
	// Equivalent, when set, reports whether observed satisfies desired at
	// path, asked only of two strings that differ otherwise.
	Equivalent func(path, desired, observed string) bool
}

// Drift returns the first difference between what the user declared (desired,
// a PUT body) and what ARM reports (actual), as a dotted path, or "" when
// actual already holds everything desired says. Properties ARM adds (defaults,
// read-only outputs) are not differences; neither are the paths in
// Rules.Ignore (write-only properties ARM never returns). Lists of objects
// with distinct names are matched by name, whatever order ARM returns them in.
func Drift(desired, actual map[string]any, r Rules) string {
	skip := make(map[string]bool, len(r.Ignore))
	for _, p := range r.Ignore {
		skip[p] = true
	}
	openSet := make(map[string]bool, len(r.OpenSets))
	for _, p := range r.OpenSets {
		openSet[p] = true
	}
	// Tags compare like any object: those desired must be there with their
	// values; others (set in the portal, by Azure Policy, by other tools)
	// are not the spec's and are kept (reconcilers' mergeTags). A tag removed
	// from the spec is drift through reconcilers' droppedTag.
	return (differ{skip: skip, open: openSet, eq: r.Equivalent, ans: answerRulesOf(r)}).diff("", desired, actual)
}

// Matches reports whether actual holds everything desired says, under the
// comparison's own rules (no Rules): what Drift asks at every path.
func Matches(desired, actual any) bool {
	return (differ{}).diff("", desired, actual) == ""
}

type differ struct {
	skip, open map[string]bool
	eq         func(path, desired, observed string) bool
	// ans are the kind's facts about Azure's answers (normalize.go, rules.go).
	ans answerRules
	// all, when set, collects every difference instead of stopping at the
	// first (observe mode shows them all).
	all *[]Difference
}

// Difference is one path where actual differs from desired, with both values
// (nil where one has none).
type Difference struct {
	Path            string
	Desired, Actual any
}

// report records a difference at path: the path, to stop at the first, or ""
// to go on collecting.
func (d differ) report(path string, want, got any) string {
	if d.all == nil {
		return path
	}
	*d.all = append(*d.all, Difference{Path: path, Desired: want, Actual: got})
	return ""
}

// Differences is every difference between desired and actual, by path, with
// Drift's rules.
func Differences(desired, actual map[string]any, r Rules) []Difference {
	d := differ{skip: map[string]bool{}, open: map[string]bool{}, eq: r.Equivalent, ans: answerRulesOf(r), all: &[]Difference{}}
	for _, p := range r.Ignore {
		d.skip[p] = true
	}
	for _, p := range r.OpenSets {
		d.open[p] = true
	}
	d.diff("", desired, actual)
	out := *d.all
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func (d differ) diff(path string, want, got any) string {
	if d.skip[path] {
		return ""
	}
	if !d.ans.empty() && ((got == nil && d.ans.notAnswered(path)) || d.ans.equivalent(path, want, got)) {
		return "" // Azure's way of answering the spec (Rules.NotReturned, Normalize)
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
			if p := d.diff(Join(path, k), wv, LookupFold(g, k)); p != "" {
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
			g = d.ans.withoutOpenValues(d.eq, path, w, g) // Rules.OpenValues
		}
		byName, named := namedElements(w, g)
		if len(g) != len(w) && !(named && d.open[path]) && (!named || d.all == nil) {
			return d.report(orRoot(path), want, got)
		}
		if named {
			for _, wv := range w {
				name := LookupFold(wv.(map[string]any), "name").(string)
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
					wanted[strings.ToLower(LookupFold(wv.(map[string]any), "name").(string))] = true
				}
				for _, gv := range g {
					if name := LookupFold(gv.(map[string]any), "name").(string); !wanted[strings.ToLower(name)] {
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
			n, _ := LookupFold(o, "name").(string)
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

// LookupFold finds k in m, case-insensitively as ARM treats property names.
func LookupFold(m map[string]any, k string) any {
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

// Join is the path of key k under path, in the comparison's syntax (keys
// joined by dots).
func Join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func orRoot(p string) string {
	if p == "" {
		return Body
	}
	return p
}
