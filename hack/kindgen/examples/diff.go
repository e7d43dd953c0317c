package examples

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Key is a property one example's answer has and another body lacks, with its value.
type Key struct {
	// Path is in the syntax of the operator's differences (reconcilers/comparison):
	// properties.x, a.b[name=n] for lists of named objects, a.c[0] for other lists; in
	// Kind.More, a[] stands for every element of a list.
	Path string `json:"path"`
	// Value is the answer's value there; for a drop, what the request sent.
	Value any `json:"value,omitempty"`
	// From is the index in Kind.Sources of the example it comes from (0, the smallest,
	// is omitted).
	From int `json:"from,omitempty"`
	// Secret, for a drop, is why the SDK holds the property for a secret (a password,
	// key or connection string; kindgen's judgement, config included): a write-only
	// value Azure never answers, not merely one this example left out.
	Secret string `json:"secret,omitempty"`
	// Answered, for a drop, counts the examples that sent the property (any element of
	// a list for a path through one) and answered it: 0 means every example that sent
	// it left it out.
	Answered int `json:"answered,omitempty"`
}

// Rewrite is a path where an example's answer holds another value than its request sent.
type Rewrite struct {
	Path     string `json:"path"`
	Sent     any    `json:"sent"`
	Answered any    `json:"answered"`
	// Class is "case" (the same letters in another case), "spelling" (the same once case
	// and whitespace are ignored: display-name locations, re-indented XML), "type" (another
	// JSON type) or "value".
	Class string `json:"class"`
	From  int    `json:"from,omitempty"`
}

// changes is what one example's answer does to its request.
type changes struct {
	adds, drops []Key
	rewrites    []Rewrite
	// answered are the schema paths (schemaPath) the request sent and the answer has.
	answered map[string]bool
}

var elementSelector = regexp.MustCompile(`\[(name=[^\]]*|[0-9]+)\]`)

// schemaPath is path with every element selector ([name=x], [2]) as [].
func schemaPath(path string) string { return elementSelector.ReplaceAllString(path, "[]") }

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// compare walks request r against answer a, as the operator's comparison pairs values:
// objects by key, lists of named objects by name (case-insensitively), other lists by
// position, lists of scalars as a whole. Read-only properties the answer adds are the
// SDK's already (status), not defaults. A drop keeps what was sent: an empty object or
// list left out is ARM's usual omission, which the operator's comparison already allows.
func compare(path string, r, a *node, out *changes) {
	switch {
	case r == nil && a == nil:
	case r == nil:
		if !a.readOnly {
			out.adds = append(out.adds, Key{Path: path, Value: a.plain()})
		}
	case a == nil:
		out.drops = append(out.drops, Key{Path: path, Value: r.plain(), Secret: r.secret})
	default:
		if out.answered == nil {
			out.answered = map[string]bool{}
		}
		out.answered[schemaPath(path)] = true
	}
	switch {
	case r == nil || a == nil:
	case r.isObj() && a.isObj():
		keys := map[string]bool{}
		for k := range r.obj {
			keys[k] = true
		}
		for k := range a.obj {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			compare(join(path, k), r.obj[k], a.obj[k], out)
		}
	case r.isArr && a.isArr:
		compareLists(path, r, a, out)
	case r.isObj() || a.isObj() || r.isArr || a.isArr:
		out.rewrites = append(out.rewrites, Rewrite{Path: path, Sent: r.plain(), Answered: a.plain(), Class: "type"})
	case !sameScalar(r.val, a.val):
		out.rewrites = append(out.rewrites, Rewrite{Path: path, Sent: r.val, Answered: a.val, Class: classOf(r.val, a.val)})
	}
}

func compareLists(path string, r, a *node, out *changes) {
	rn, rok := names(r)
	an, aok := names(a)
	switch {
	case rok && aok:
		seen := map[string]bool{}
		for _, e := range r.arr {
			name := e.obj["name"].val.(string)
			seen[strings.ToLower(name)] = true
			compare(fmt.Sprintf("%s[name=%s]", path, name), e, an[strings.ToLower(name)], out)
		}
		for _, e := range a.arr {
			if name := e.obj["name"].val.(string); !seen[strings.ToLower(name)] {
				compare(fmt.Sprintf("%s[name=%s]", path, name), rn[strings.ToLower(name)], e, out)
			}
		}
	case scalars(r) && scalars(a):
		same := len(r.arr) == len(a.arr)
		for i := 0; same && i < len(r.arr); i++ {
			same = sameScalar(r.arr[i].val, a.arr[i].val)
		}
		if !same {
			out.rewrites = append(out.rewrites, Rewrite{Path: path, Sent: r.plain(), Answered: a.plain(), Class: "value"})
		}
	default:
		for i := 0; i < len(r.arr) || i < len(a.arr); i++ {
			var re, ae *node
			if i < len(r.arr) {
				re = r.arr[i]
			}
			if i < len(a.arr) {
				ae = a.arr[i]
			}
			compare(fmt.Sprintf("%s[%d]", path, i), re, ae, out)
		}
	}
}

// names indexes a list of objects by lower-cased name, if each has a distinct one.
func names(l *node) (map[string]*node, bool) {
	m := map[string]*node{}
	for _, e := range l.arr {
		if !e.isObj() || e.obj["name"] == nil {
			return nil, false
		}
		n, ok := e.obj["name"].val.(string)
		if !ok || n == "" || m[strings.ToLower(n)] != nil {
			return nil, false
		}
		m[strings.ToLower(n)] = e
	}
	return m, len(m) > 0
}

func scalars(l *node) bool {
	for _, e := range l.arr {
		if e.isObj() || e.isArr {
			return false
		}
	}
	return true
}

func classOf(sent, answered any) string {
	s, sok := sent.(string)
	a, aok := answered.(string)
	switch {
	case !sok || !aok:
		if fmt.Sprintf("%T", sent) != fmt.Sprintf("%T", answered) {
			return "type"
		}
		return "value"
	case strings.EqualFold(s, a):
		return "case"
	case squeeze(s) == squeeze(a):
		return "spelling"
	}
	return "value"
}

// squeeze lower-cases s and removes its whitespace.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shape is the set of schema paths (lists as a[]) an answer has.
func shape(path string, n *node, into map[string]bool) {
	switch {
	case n.isObj():
		for k, v := range n.obj {
			p := join(path, k)
			into[p] = true
			shape(p, v, into)
		}
	case n.isArr:
		for _, e := range n.arr {
			shape(path+"[]", e, into)
		}
	}
}

// beyond lists the outermost properties of n that the shape has not: what another
// example's answer adds to the smallest one's.
func beyond(path string, n *node, has map[string]bool, from int, out *[]Key) {
	switch {
	case n.isObj():
		for _, k := range n.keys() {
			p := join(path, k)
			if !has[p] {
				*out = append(*out, Key{Path: p, Value: n.obj[k].plain(), From: from})
				continue
			}
			beyond(p, n.obj[k], has, from, out)
		}
	case n.isArr:
		for _, e := range n.arr {
			beyond(path+"[]", e, has, from, out)
		}
	}
}
