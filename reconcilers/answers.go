package reconcilers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// This file is Azure's answer to a write (issue 27; the design is
// docs/design/azure-answers.md, §1): where Azure answers a write its own way
// (a value it forces, rewrites or never returns), status.azureKeeps records
// that answer, per path, as keyed digests, so later syncs take that answer as
// in sync instead of writing the same body again at every sync. These are the
// pure parts: the digests, the projection of Azure's answer onto what the
// spec says, the paths, the bound on entries, and the decision at one path.
// The steps that use them (record, consult) are in keeps.go.

const (
	// maxKept is how many entries status.azureKeeps holds; more are merged
	// into their common parents (collapse).
	maxKept = 64
	// keptValueLimit is how many characters of Azure's value an entry shows.
	keptValueLimit = 128
	// bodyPath is the path of the whole body, as compare.go reports it.
	bodyPath = "(body)"
	// answerScheme prefixes every digest: a new scheme (or a new table of
	// normalisations) drops the records made with another.
	answerScheme = "h1:"
)

// answers is what recording Azure's answer and deciding with it need: the
// digest key (writeOnlyKey: the UIDs of the Secrets the kind reads, else the
// object's), the desired body and Azure's, the kind's open sets, and what is
// secret (Facts.WriteOnly, and the values read from Secrets or other objects).
type answers struct {
	key             []byte
	desired, actual map[string]any
	open            map[string]bool
	writeOnly       []string
	secrets         []string
	// decided remembers keeps' answer per entry (nil: not remembered), for
	// the many differences one coarse entry covers.
	decided map[string]bool
}

// digest is the keyed digest of v at path: h1: and 22 characters of
// base64url (132 bits) of HMAC-SHA256 over the path and v's canonical JSON.
// Status is readable by whoever may view the namespace, Secrets are not: the
// key keeps a value read from a Secret from being guessed offline.
func (a answers) digest(path string, v any) string {
	h := hmac.New(sha256.New, a.key)
	h.Write([]byte("aztenant.io/azure-answer/v1\x00"))
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(canonicalJSON(v))
	return answerScheme + base64.RawURLEncoding.EncodeToString(h.Sum(nil))[:22]
}

// sent is the digest of the desired value at path.
func (a answers) sent(path string) string {
	v, _ := valueAtPath(a.desired, path)
	return a.digest(path, v)
}

// answered is the digest of Azure's value at path as projected onto the
// desired value there, "" when Azure has nothing there.
func (a answers) answered(path string) string {
	got, ok := a.projected(path)
	if !ok {
		return ""
	}
	return a.digest(path, got)
}

// projected is Azure's value at path, projected onto the desired value there
// (project); false when Azure has nothing there.
func (a answers) projected(path string) (any, bool) {
	got, ok := valueAtPath(a.actual, path)
	if !ok {
		return nil, false
	}
	want, _ := valueAtPath(a.desired, path)
	return project(path, want, got, a.open), true
}

// entry is the record of path: the digests of what was sent and of what
// Azure answered, and Azure's value unless it may be secret.
func (a answers) entry(path string) azurev1alpha1.KeptPath {
	e := azurev1alpha1.KeptPath{Path: path, Sent: a.sent(path), Answered: a.answered(path)}
	if got, ok := a.projected(path); ok && !a.secret(path) {
		e.Value = keptValue(got)
	}
	return e
}

// record is the entries for the differences left after a write (one per
// path, merged into common parents past maxKept), sorted by path.
func (a answers) record(diffs []difference) []azurev1alpha1.KeptPath {
	paths := make([]string, 0, len(diffs))
	for _, d := range diffs {
		paths = append(paths, d.path)
	}
	paths = collapse(paths, maxKept)
	out := make([]azurev1alpha1.KeptPath, 0, len(paths))
	for _, p := range paths {
		out = append(out, a.entry(p))
	}
	return out
}

// keeps reports whether the record says Azure keeps path its own way: the
// entry covering path (longest prefix) was made for the desired value there
// now, and Azure still answers what it answered then. Asked only of a path
// the comparison reports as different, so an entry never turns a match into
// a write.
func (a answers) keeps(entries []azurev1alpha1.KeptPath, path string) bool {
	e := covering(entries, path)
	if e == nil {
		return false
	}
	if k, ok := a.decided[e.Path]; ok {
		return k
	}
	k := a.sent(e.Path) == e.Sent && a.answered(e.Path) == e.Answered
	if a.decided != nil {
		a.decided[e.Path] = k
	}
	return k
}

// secret reports whether Azure's value at path may show a secret: the path
// is, holds or lies under a write-only path, or the desired or answered value
// there holds a value read through Hooks.Resolve (a Secret's, or another
// object's: not told apart, so both are hidden).
func (a answers) secret(path string) bool {
	for _, w := range a.writeOnly {
		if covers(w, path) || covers(path, w) {
			return true
		}
	}
	if len(a.secrets) == 0 {
		return false
	}
	want, _ := valueAtPath(a.desired, path)
	got, _ := valueAtPath(a.actual, path)
	return holdsAny(want, a.secrets) || holdsAny(got, a.secrets)
}

// holdsAny reports whether a string in v is or contains one of values.
func holdsAny(v any, values []string) bool {
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			if holdsAny(e, values) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if holdsAny(e, values) {
				return true
			}
		}
	case string:
		for _, s := range values {
			if s != "" && (t == s || len(s) >= 4 && strings.Contains(t, s)) {
				return true
			}
		}
	}
	return false
}

// keptValue is v as JSON, cut to keptValueLimit characters.
func keptValue(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	s := string(data)
	if utf8.RuneCountInString(s) <= keptValueLimit {
		return s
	}
	r := []rune(s)
	return string(r[:keptValueLimit]) + "…"
}

// project is Azure's value (got) reduced to what the desired value (want)
// names: a map's keys the desired map has, a named list's elements by name
// (an element the spec does not name by its name alone, and not at all in an
// open set), a list by position. Read-only and volatile fields Azure adds
// beside the spec's (provisioningState, _ts) therefore never change a digest.
func project(path string, want, got any, open map[string]bool) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := make(map[string]any, len(w))
		for k, wv := range w {
			if gv := lookupFold(g, k); gv != nil {
				out[k] = project(join(path, k), wv, gv, open)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return got
		}
		if _, named := namedElements(w, g); named {
			wanted := make(map[string]any, len(w))
			for _, wv := range w {
				wanted[strings.ToLower(lookupFold(wv.(map[string]any), "name").(string))] = wv
			}
			out := make([]any, 0, len(g))
			for _, gv := range g {
				name := lookupFold(gv.(map[string]any), "name").(string)
				wv, mine := wanted[strings.ToLower(name)]
				switch {
				case mine:
					out = append(out, project(fmt.Sprintf("%s[name=%s]", path, name), wv, gv, open))
				case !open[path]:
					out = append(out, map[string]any{"name": name})
				}
			}
			return out
		}
		out := make([]any, len(g))
		for i, gv := range g {
			if i < len(w) {
				out[i] = project(fmt.Sprintf("%s[%d]", path, i), w[i], gv, open)
			} else {
				out[i] = gv
			}
		}
		return out
	default:
		return got
	}
}

// canonicalJSON is v's JSON with map keys sorted, null values left out (ARM
// treats null and absent alike), numbers of any Go type alike, and named
// lists (compare.go's namedElements) sorted by name.
func canonicalJSON(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return raw
	}
	out, _ := json.Marshal(canonical(generic)) // map keys sorted
	return out
}

func canonical(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if e != nil {
				out[k] = canonical(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = canonical(e)
		}
		if _, named := namedElements(out, out); named {
			slices.SortStableFunc(out, func(x, y any) int {
				return strings.Compare(strings.ToLower(lookupFold(x.(map[string]any), "name").(string)), strings.ToLower(lookupFold(y.(map[string]any), "name").(string)))
			})
		}
		return out
	}
	return v
}

// The paths are compare.go's: keys joined by dots, a named list's element as
// [name=n], another list's as [i], and (body) for the whole body.

// pathSegments splits a path into its keys and [..] indexes: "a.b[name=x.y].c"
// is a, b, [name=x.y], c. A key holding a dot (a tag's name) is split too;
// valueAtPath takes the keys a body has, whatever they hold.
func pathSegments(path string) []string {
	if path == bodyPath || path == "" {
		return nil
	}
	var out []string
	for rest := path; rest != ""; {
		if rest[0] == '[' {
			end := indexClose(rest)
			out = append(out, rest[:end+1])
			rest = strings.TrimPrefix(rest[end+1:], ".")
			continue
		}
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			out = append(out, rest)
			break
		}
		out = append(out, rest[:end])
		rest = strings.TrimPrefix(rest[end:], ".")
	}
	return out
}

// indexClose is the index of the ] closing the [ at s[0]: the first one
// followed by the end, a dot or another [ (a name may hold brackets).
func indexClose(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == ']' && (i+1 == len(s) || s[i+1] == '.' || s[i+1] == '[') {
			return i
		}
	}
	return len(s) - 1
}

// joinSegments is pathSegments' inverse.
func joinSegments(segs []string) string {
	if len(segs) == 0 {
		return bodyPath
	}
	var b strings.Builder
	for i, s := range segs {
		if i > 0 && s[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// parentPath is the path one segment up; the body's for a top-level key.
func parentPath(path string) string {
	segs := pathSegments(path)
	if len(segs) == 0 {
		return bodyPath
	}
	return joinSegments(segs[:len(segs)-1])
}

func pathDepth(path string) int { return len(pathSegments(path)) }

// valueAtPath reads a path of compare.go's syntax in a JSON value: map keys
// case-insensitively (as lookupFold), the longest key that fits when keys
// hold dots; false when nothing (or null) is there.
func valueAtPath(root any, path string) (any, bool) {
	if path == bodyPath || path == "" {
		return root, root != nil
	}
	cur, rest := root, path
	for rest != "" {
		if rest[0] == '[' {
			end := indexClose(rest)
			idx := rest[1:end]
			rest = strings.TrimPrefix(rest[end+1:], ".")
			l, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			if name, byName := strings.CutPrefix(idx, "name="); byName {
				cur = nil
				for _, e := range l {
					m, _ := e.(map[string]any)
					if n, _ := lookupFold(m, "name").(string); strings.EqualFold(n, name) {
						cur = e
						break
					}
				}
				if cur == nil {
					return nil, false
				}
				continue
			}
			i, err := strconv.Atoi(idx)
			if err != nil || i < 0 || i >= len(l) {
				return nil, false
			}
			cur = l[i]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		best := ""
		for k := range m {
			if len(k) > len(best) && len(k) <= len(rest) && strings.EqualFold(rest[:len(k)], k) &&
				(len(k) == len(rest) || rest[len(k)] == '.' || rest[len(k)] == '[') {
				best = k
			}
		}
		if best == "" {
			return nil, false
		}
		cur = m[best]
		rest = strings.TrimPrefix(rest[len(best):], ".")
	}
	return cur, cur != nil
}

// covers reports whether the entry at path p covers path q: q is p or lies
// under it.
func covers(p, q string) bool {
	if p == bodyPath {
		return true
	}
	if len(q) < len(p) || !strings.EqualFold(q[:len(p)], p) {
		return false
	}
	return len(q) == len(p) || q[len(p)] == '.' || q[len(p)] == '['
}

// covering is the entry covering path with the longest path, nil if none.
func covering(entries []azurev1alpha1.KeptPath, path string) *azurev1alpha1.KeptPath {
	var best *azurev1alpha1.KeptPath
	for i := range entries {
		e := &entries[i]
		if covers(e.Path, path) && (best == nil || pathDepth(e.Path) > pathDepth(best.Path)) {
			best = e
		}
	}
	return best
}

// collapse bounds paths to limit: paths under another are dropped, then, while
// there are more than limit, the deepest parent of two or more paths takes
// their place (when every path has a parent of its own, the deepest paths go
// up one), ending in (body) at worst. A coarser entry is still right: only a
// change inside it is seen more coarsely (any change there is one write).
func collapse(paths []string, limit int) []string {
	set := topmost(paths)
	for len(set) > limit {
		children := map[string]int{}
		deepest := 0
		for _, p := range set {
			children[parentPath(p)]++
			deepest = max(deepest, pathDepth(p))
		}
		best, bestDepth := "", -1
		for _, p := range slices.Sorted(maps.Keys(children)) {
			if d := pathDepth(p); children[p] >= 2 && d > bestDepth {
				best, bestDepth = p, d
			}
		}
		if best != "" {
			set = topmost(append(set, best))
			continue
		}
		for i, p := range set {
			if pathDepth(p) == deepest {
				set[i] = parentPath(p)
			}
		}
		set = topmost(set)
	}
	return set
}

// topmost is paths without duplicates and without those another covers, sorted.
func topmost(paths []string) []string {
	if slices.Contains(paths, bodyPath) {
		return []string{bodyPath}
	}
	sorted := slices.Clone(paths)
	slices.SortFunc(sorted, func(a, b string) int { return pathDepth(a) - pathDepth(b) })
	kept := map[string]bool{}
	var out []string
	for _, p := range sorted {
		segs := pathSegments(p)
		covered := false
		for i := 1; i <= len(segs) && !covered; i++ {
			covered = kept[strings.ToLower(joinSegments(segs[:i]))]
		}
		if !covered {
			kept[strings.ToLower(p)] = true
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// keptNames are the paths of entries, for telling whether the set changed.
func keptNames(k *azurev1alpha1.AzureKeeps) []string {
	if k == nil {
		return nil
	}
	out := make([]string, 0, len(k.Paths))
	for _, e := range k.Paths {
		out = append(out, e.Path)
	}
	return out
}
