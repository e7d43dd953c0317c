// Package azureanswers gives the fuzz tests of the comparison and of the
// listings their seeds: the bodies of internal/azimport/testdata/answers
// (Azure's response examples at the pinned api-versions, each file naming its
// example in azure-rest-api-specs, and hand-written shapes Azure also gives),
// and the odd shapes Azure gives besides an example.
//
// It is part of the test harness (internal/testing), which nothing shipped
// imports.
package azureanswers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Bodies are the bodies of internal/azimport/testdata/answers.
func Bodies(tb testing.TB) [][]byte {
	tb.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("azureanswers: no source path")
	}
	dir := filepath.Join(filepath.Dir(self), "..", "..", "azimport", "testdata", "answers")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no answers: %v", err)
	}
	var out [][]byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var a struct {
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(raw, &a); err != nil || len(a.Body) == 0 {
			tb.Fatalf("%s: no body: %v", f, err)
		}
		out = append(out, a.Body)
	}
	return out
}

// OddShapes are the shapes Azure gives besides an example: null for every
// value, numbers and booleans as strings, empty lists and objects as null.
func OddShapes(body []byte) [][]byte {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	var out [][]byte
	for _, fn := range []func(any) any{
		func(any) any { return nil },
		func(v any) any {
			switch x := v.(type) {
			case float64:
				raw, _ := json.Marshal(x)
				return string(raw)
			case bool:
				if x {
					return "true"
				}
				return "false"
			}
			return v
		},
		func(v any) any {
			if m, ok := v.(map[string]any); ok && len(m) == 0 {
				return nil
			}
			if l, ok := v.([]any); ok && len(l) == 0 {
				return nil
			}
			return v
		},
	} {
		raw, _ := json.Marshal(mapLeaves(v, fn))
		out = append(out, raw)
	}
	return out
}

// mapLeaves applies fn to every scalar and empty container under v.
func mapLeaves(v any, fn func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return fn(x)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = mapLeaves(e, fn)
		}
		return out
	case []any:
		if len(x) == 0 {
			return fn(x)
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapLeaves(e, fn)
		}
		return out
	}
	return fn(v)
}
