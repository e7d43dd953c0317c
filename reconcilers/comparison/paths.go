package comparison

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// This file is the comparison's paths and what reads or bounds them: Drift's
// and Differences' paths name where a body differs, and reconcilers' record
// of Azure's answers (status.azureKeeps) keys its entries by them. Also the
// projection of Azure's answer onto the desired body and a body's canonical
// JSON, which the record digests.

// Body is the path of the whole body, as Drift reports it.
const Body = "(body)"

// Project is Azure's value (got) reduced to what the desired value (want)
// names: a map's keys the desired map has, a named list's elements by name
// (an element the spec does not name by its name alone, and not at all in an
// open set), a list by position. Read-only and volatile fields Azure adds
// beside the spec's (provisioningState, _ts) therefore never change a digest.
func Project(path string, want, got any, open map[string]bool) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := make(map[string]any, len(w))
		for k, wv := range w {
			if gv := LookupFold(g, k); gv != nil {
				out[k] = Project(Join(path, k), wv, gv, open)
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
				wanted[strings.ToLower(LookupFold(wv.(map[string]any), "name").(string))] = wv
			}
			out := make([]any, 0, len(g))
			for _, gv := range g {
				name := LookupFold(gv.(map[string]any), "name").(string)
				wv, mine := wanted[strings.ToLower(name)]
				switch {
				case mine:
					out = append(out, Project(fmt.Sprintf("%s[name=%s]", path, name), wv, gv, open))
				case !open[path]:
					out = append(out, map[string]any{"name": name})
				}
			}
			return out
		}
		out := make([]any, len(g))
		for i, gv := range g {
			if i < len(w) {
				out[i] = Project(fmt.Sprintf("%s[%d]", path, i), w[i], gv, open)
			} else {
				out[i] = gv
			}
		}
		return out
	default:
		return got
	}
}

// CanonicalJSON is v's JSON with map keys sorted, null values left out (ARM
// treats null and absent alike), numbers of any Go type alike, and named
// lists (namedElements) sorted by name.
func CanonicalJSON(v any) []byte {
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
				return strings.Compare(strings.ToLower(LookupFold(x.(map[string]any), "name").(string)), strings.ToLower(LookupFold(y.(map[string]any), "name").(string)))
			})
		}
		return out
	}
	return v
}

// The paths are Drift's: keys joined by dots, a named list's element as
// [name=n], another list's as [i], and (body) for the whole body.

// pathSegments splits a path into its keys and [..] indexes: "a.b[name=x.y].c"
// is a, b, [name=x.y], c. A key holding a dot (a tag's name) is split too;
// ValueAt takes the keys a body has, whatever they hold.
func pathSegments(path string) []string {
	if path == Body || path == "" {
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
		return Body
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
		return Body
	}
	return joinSegments(segs[:len(segs)-1])
}

// Depth is how many keys and list indexes path has; 0 for the body.
func Depth(path string) int { return len(pathSegments(path)) }

// ValueAt reads a path of Drift's syntax in a JSON value: map keys
// case-insensitively (as LookupFold), the longest key that fits when keys
// hold dots; false when nothing (or null) is there.
func ValueAt(root any, path string) (any, bool) {
	if path == Body || path == "" {
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
					if n, _ := LookupFold(m, "name").(string); strings.EqualFold(n, name) {
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

// Covers reports whether path p covers path q: q is p or lies under it.
func Covers(p, q string) bool {
	if p == Body {
		return true
	}
	if len(q) < len(p) || !strings.EqualFold(q[:len(p)], p) {
		return false
	}
	return len(q) == len(p) || q[len(p)] == '.' || q[len(p)] == '['
}

// Collapse bounds paths to limit: paths under another are dropped, then, while
// there are more than limit, the deepest parent of two or more paths takes
// their place (when every path has a parent of its own, the deepest paths go
// up one), ending in (body) at worst. A coarser entry is still right: only a
// change inside it is seen more coarsely (any change there is one write).
func Collapse(paths []string, limit int) []string {
	set := topmost(paths)
	for len(set) > limit {
		children := map[string]int{}
		deepest := 0
		for _, p := range set {
			children[parentPath(p)]++
			deepest = max(deepest, Depth(p))
		}
		best, bestDepth := "", -1
		for _, p := range slices.Sorted(maps.Keys(children)) {
			if d := Depth(p); children[p] >= 2 && d > bestDepth {
				best, bestDepth = p, d
			}
		}
		if best != "" {
			set = topmost(append(set, best))
			continue
		}
		for i, p := range set {
			if Depth(p) == deepest {
				set[i] = parentPath(p)
			}
		}
		set = topmost(set)
	}
	return set
}

// topmost is paths without duplicates and without those another covers, sorted.
func topmost(paths []string) []string {
	if slices.Contains(paths, Body) {
		return []string{Body}
	}
	sorted := slices.Clone(paths)
	slices.SortFunc(sorted, func(a, b string) int { return Depth(a) - Depth(b) })
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
