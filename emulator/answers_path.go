package emulator

import (
	"fmt"
	"strconv"
	"strings"
)

// pathToken is one step of an answer transform's path: an object key, or a selection
// of list elements (all, one index, or those whose field equals a value).
type pathToken struct {
	kind         tokenKind
	key          string // tokKey
	index        int    // tokIndex
	field, value string // tokMatch
}

type tokenKind int

const (
	tokKey tokenKind = iota
	tokAll
	tokIndex
	tokMatch
)

// parseAnswerPath reads keys joined by dots, each followed by any number of [] / [n] /
// [field=value] selectors: properties.locations[].locationName, a.b[name=x].c.
func parseAnswerPath(p string) ([]pathToken, error) {
	if p == "" {
		return nil, fmt.Errorf("path is empty")
	}
	var out []pathToken
	bad := func(why string) error { return fmt.Errorf("path %q: %s", p, why) }
	for i := 0; i < len(p); {
		end := strings.IndexAny(p[i:], ".[]")
		if end < 0 {
			end = len(p) - i
		}
		if end == 0 {
			return nil, bad("a key is empty")
		}
		out = append(out, pathToken{kind: tokKey, key: p[i : i+end]})
		i += end
		for i < len(p) && p[i] == '[' {
			close := strings.IndexByte(p[i:], ']')
			if close < 0 {
				return nil, bad("a [ is not closed")
			}
			sel := p[i+1 : i+close]
			i += close + 1
			switch f, v, isMatch := strings.Cut(sel, "="); {
			case sel == "":
				out = append(out, pathToken{kind: tokAll})
			case isMatch:
				if f == "" {
					return nil, bad("a [field=value] has no field")
				}
				out = append(out, pathToken{kind: tokMatch, field: f, value: v})
			default:
				n, err := strconv.Atoi(sel)
				if err != nil || n < 0 {
					return nil, bad("a selector is not [], [index] or [field=value]")
				}
				out = append(out, pathToken{kind: tokIndex, index: n})
			}
		}
		switch {
		case i == len(p):
		case p[i] == '.' && i+1 < len(p):
			i++
		default:
			return nil, bad("expected . between keys")
		}
	}
	return out, nil
}

// editFunc gets the value at a place a path reaches (ok false: nothing there) and
// returns its replacement and whether to keep one (false deletes the key or element).
type editFunc func(v any, ok bool) (any, bool)

// editPath applies fn at every place path reaches in node, returning the new node. With
// create, a missing object on the way is created when the next step is a key; list
// selectors only ever select elements that exist.
func editPath(node any, path []pathToken, create bool, fn editFunc) any {
	tok, rest := path[0], path[1:]
	if tok.kind == tokKey {
		m, isMap := node.(map[string]any)
		if !isMap {
			return node
		}
		child, ok := m[tok.key]
		if len(rest) == 0 {
			if nv, keep := fn(child, ok); keep {
				m[tok.key] = nv
			} else if ok {
				delete(m, tok.key)
			}
			return m
		}
		if !ok {
			if !create || rest[0].kind != tokKey {
				return m
			}
			child = map[string]any{}
		}
		m[tok.key] = editPath(child, rest, create, fn)
		return m
	}
	list, isList := node.([]any)
	if !isList {
		return node
	}
	out := make([]any, 0, len(list))
	for i, el := range list {
		if !tok.selects(i, el) {
			out = append(out, el)
			continue
		}
		if len(rest) > 0 {
			out = append(out, editPath(el, rest, create, fn))
			continue
		}
		if nv, keep := fn(el, true); keep {
			out = append(out, nv)
		}
	}
	return out
}

// selects reports whether a list selector takes element i.
func (t pathToken) selects(i int, el any) bool {
	switch t.kind {
	case tokAll:
		return true
	case tokIndex:
		return i == t.index
	case tokMatch:
		m, _ := el.(map[string]any)
		return m != nil && strings.EqualFold(fmt.Sprint(m[t.field]), t.value) && m[t.field] != nil
	}
	return false
}
