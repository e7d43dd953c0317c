package comparison

import "strings"

// This file applies a kind's facts about Azure's answers in the comparison
// (Rules.Normalize, NotReturned, OpenValues), at the paths they name.

// answerRules are a kind's facts about Azure's answers as the comparison
// applies them, by fact path (factPath).
type answerRules struct {
	normalize   map[string]Normalizer
	notReturned map[string]bool
	openValues  map[string][]any
	// patterns: some path has a "*", so lookups match segment by segment.
	patterns bool
}

// answerRulesOf indexes r's facts about answers; the zero value when it has none.
func answerRulesOf(f Rules) answerRules {
	if len(f.Normalize) == 0 && len(f.NotReturned) == 0 && len(f.OpenValues) == 0 {
		return answerRules{}
	}
	r := answerRules{normalize: f.Normalize, notReturned: map[string]bool{}, openValues: f.OpenValues}
	for _, p := range f.NotReturned {
		r.notReturned[p] = true
	}
	for p := range f.Normalize {
		r.patterns = r.patterns || strings.Contains(p, "*")
	}
	for _, p := range f.NotReturned {
		r.patterns = r.patterns || strings.Contains(p, "*")
	}
	for p := range f.OpenValues {
		r.patterns = r.patterns || strings.Contains(p, "*")
	}
	return r
}

func (r answerRules) empty() bool {
	return r.normalize == nil && r.notReturned == nil && r.openValues == nil
}

// factPath is a compared path (Drift's: properties.locations[0].locationName,
// a.b[name=n].c) as facts name it: the list selectors dropped.
func factPath(p string) string {
	if !strings.Contains(p, "[") {
		return p
	}
	var b strings.Builder
	depth := 0
	for _, c := range p {
		switch {
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// matchFact says whether a fact path (with "*" for any map key) names path.
func matchFact(pattern, path string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == path
	}
	ps, qs := strings.Split(pattern, "."), strings.Split(path, ".")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != qs[i] {
			return false
		}
	}
	return true
}

// lookup finds the fact of a map keyed by fact path for the compared path.
func lookup[V any](m map[string]V, patterns bool, path string) (V, bool) {
	var zero V
	if len(m) == 0 {
		return zero, false
	}
	fp := factPath(path)
	if v, ok := m[fp]; ok {
		return v, true
	}
	if patterns {
		for p, v := range m {
			if matchFact(p, fp) {
				return v, true
			}
		}
	}
	return zero, false
}

// notAnswered says whether Azure leaving path out of its answer is no
// difference (Rules.NotReturned).
func (r answerRules) notAnswered(path string) bool {
	_, ok := lookup(r.notReturned, r.patterns, path)
	return ok
}

// equivalent says whether desired and actual at path mean the same under the
// entry Rules.Normalize names there.
func (r answerRules) equivalent(path string, desired, actual any) bool {
	n, ok := lookup(r.normalize, r.patterns, path)
	return ok && n.same(desired, actual)
}

// withoutOpenValues is got without the elements Azure adds on its own at path
// (Rules.OpenValues) that want does not hold; got itself when there are none.
func (r answerRules) withoutOpenValues(eq func(path, desired, observed string) bool, path string, want, got []any) []any {
	open, ok := lookup(r.openValues, r.patterns, path)
	if !ok {
		return got
	}
	covers := func(v, e any) bool { return (differ{eq: eq}).diff("", v, e) == "" }
	out := make([]any, 0, len(got))
	for _, g := range got {
		added := false
		for _, v := range open {
			if covers(v, g) {
				added = true
				break
			}
		}
		if added {
			for _, w := range want {
				if covers(w, g) {
					added = false // the spec holds it too
					break
				}
			}
		}
		if !added {
			out = append(out, g)
		}
	}
	return out
}
