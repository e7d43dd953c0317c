package comparison

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

func jsonBody(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Paths read the way Drift writes them: keys (case-insensitive, holding
// dots), named elements, positions, the body.
func TestValueAt(t *testing.T) {
	body := jsonBody(t, `{"tags":{"cost.center":"x"},"properties":{"Subnets":[{"name":"a.b","properties":{"p":1}},{"name":"c"}],"list":[10,20],"n":null}}`)
	for path, want := range map[string]any{
		"tags.cost.center":                          "x",
		"properties.subnets[name=A.B].properties.p": 1.0,
		"properties.subnets[name=c].name":           "c",
		"properties.list[1]":                        20.0,
	} {
		got, ok := ValueAt(body, path)
		if !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v %v, want %v", path, got, ok, want)
		}
	}
	for _, path := range []string{"properties.n", "properties.missing", "properties.list[2]", "properties.subnets[name=z]", "tags.cost"} {
		if got, ok := ValueAt(body, path); ok {
			t.Errorf("%s: %v, want nothing", path, got)
		}
	}
	if got, ok := ValueAt(body, Body); !ok || got == nil {
		t.Error("(body) is the body")
	}
	if segs := pathSegments("a.b[name=x.y].c[0]"); !slices.Equal(segs, []string{"a", "b", "[name=x.y]", "c", "[0]"}) {
		t.Errorf("segments %q", segs)
	}
	for p, want := range map[string]string{"a.b[name=x.y].c": "a.b[name=x.y]", "a.b[name=x.y]": "a.b", "a": Body, "a[0]": "a"} {
		if got := parentPath(p); got != want {
			t.Errorf("parentPath(%s) = %s, want %s", p, got, want)
		}
	}
}

// Past the limit, paths merge into their deepest common parents, at worst
// into the body; paths another covers are left out.
func TestCollapse(t *testing.T) {
	if got := Collapse([]string{"a.b", "c.d", "e.f"}, 1); !slices.Equal(got, []string{Body}) {
		t.Errorf("collapse to 1 entry: %v, want (body)", got)
	}
	if got := Collapse([]string{"a.b.c", "a.b", "a.b[0]", "x"}, 64); !slices.Equal(got, []string{"a.b", "x"}) {
		t.Errorf("covered paths are left out: %v", got)
	}
}
