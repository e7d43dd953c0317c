package examples

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
)

// node is an evaluated JSON value that remembers whether the SDK marks the property
// holding it READ-ONLY.
type node struct {
	// Exactly one shape: obj for an object (possibly empty), arr with isArr for an array,
	// val for a scalar (string, json.Number, bool).
	obj      map[string]*node
	arr      []*node
	isArr    bool
	val      any
	readOnly bool
	// secret is the SDK's reason (model.Field.Secret) when the property holding the
	// value is a secret: a password, key or connection string.
	secret string
}

func object() *node { return &node{obj: map[string]*node{}} }

func (n *node) isObj() bool { return n != nil && n.obj != nil }

// plain is the node as encoding/json values (objects as maps, whose keys encoding/json
// sorts).
func (n *node) plain() any {
	switch {
	case n == nil:
		return nil
	case n.obj != nil:
		m := make(map[string]any, len(n.obj))
		for k, v := range n.obj {
			m[k] = v.plain()
		}
		return m
	case n.isArr:
		a := make([]any, len(n.arr))
		for i, v := range n.arr {
			a[i] = v.plain()
		}
		return a
	}
	return n.val
}

// keys are an object's keys in order.
func (n *node) keys() []string {
	ks := make([]string, 0, len(n.obj))
	for k := range n.obj {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// marshal is minified JSON with sorted keys, and without HTML escaping: the values are
// XML policies and URLs, which escaping would make longer and harder to read.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// size is the length of the node as minified JSON.
func (n *node) size() int {
	b, _ := marshal(n.plain())
	return len(b)
}

// sameScalar compares two scalars, numbers by value (1 and 1.0 are one number).
func sameScalar(a, b any) bool {
	na, aok := a.(json.Number)
	nb, bok := b.(json.Number)
	if aok && bok {
		fa, ea := strconv.ParseFloat(string(na), 64)
		fb, eb := strconv.ParseFloat(string(nb), 64)
		if ea == nil && eb == nil {
			return fa == fb
		}
		return na == nb
	}
	return a == b
}
