package examples

import (
	"encoding/json"
	"testing"
)

func parse(t *testing.T, s string) *node {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	var conv func(v any) *node
	conv = func(v any) *node {
		switch v := v.(type) {
		case map[string]any:
			n := object()
			for k, x := range v {
				n.obj[k] = conv(x)
			}
			return n
		case []any:
			n := &node{isArr: true, arr: []*node{}}
			for _, x := range v {
				n.arr = append(n.arr, conv(x))
			}
			return n
		case float64:
			b, _ := json.Marshal(v)
			return &node{val: json.Number(b)}
		}
		return &node{val: v}
	}
	return conv(v)
}

func paths(keys []Key) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.Path)
	}
	return out
}

// Named lists pair by name whatever the order (a Container Apps environment's workload
// profiles); other lists by position; lists of scalars as a whole.
func TestCompare(t *testing.T) {
	r := parse(t, `{"p":{"profiles":[{"name":"a","n":1},{"name":"B"}],"rules":[{"v":"x"}],"tags":["t"],"secret":"s","same":1}}`)
	a := parse(t, `{"p":{"profiles":[{"name":"b","max":2},{"name":"A","n":1},{"name":"Consumption"}],"rules":[{"v":"x/32"}],"tags":["t","u"],"same":1.0,"fqdn":"f"}}`)
	ro := a.obj["p"].obj["fqdn"]
	ro.readOnly = true
	var ch changes
	compare("", r, a, &ch)
	if got, want := jsonString(t, paths(ch.adds)), `["p.profiles[name=B].max","p.profiles[name=Consumption]"]`; got != want {
		t.Errorf("adds = %s, want %s", got, want)
	}
	if got, want := jsonString(t, paths(ch.drops)), `["p.secret"]`; got != want {
		t.Errorf("drops = %s, want %s", got, want)
	}
	var rw []string
	for _, x := range ch.rewrites {
		rw = append(rw, x.Path+":"+x.Class)
	}
	if got, want := jsonString(t, rw), `["p.profiles[name=a].name:case","p.profiles[name=B].name:case","p.rules[0].v:value","p.tags:value"]`; got != want {
		t.Errorf("rewrites = %s, want %s", got, want)
	}
}

func TestClassOf(t *testing.T) {
	for _, c := range []struct {
		sent, answered any
		want           string
	}{
		{"westus", "West US", "spelling"},
		{"Standard", "standard", "case"},
		{"<a> <b/></a>", "<a>\r\n  <b/>\r\n</a>", "spelling"},
		{"/apis", "/subscriptions/s/apis", "value"},
		{json.Number("2"), json.Number("1"), "value"},
		{json.Number("1"), "1", "type"},
	} {
		if got := classOf(c.sent, c.answered); got != c.want {
			t.Errorf("classOf(%v, %v) = %s, want %s", c.sent, c.answered, got, c.want)
		}
	}
}

// beyond reports the outermost keys another answer has beyond the smallest one's, list
// elements as [].
func TestBeyond(t *testing.T) {
	has := map[string]bool{}
	shape("", parse(t, `{"p":{"l":[{"a":1}],"o":{"x":1}}}`), has)
	var out []Key
	beyond("", parse(t, `{"p":{"l":[{"a":1,"b":{"c":1}}],"o":{"x":2,"y":{"z":1}},"n":1}}`), has, 3, &out)
	if got, want := jsonString(t, out), `[{"path":"p.l[].b","value":{"c":1},"from":3},{"path":"p.n","value":1,"from":3},{"path":"p.o.y","value":{"z":1},"from":3}]`; got != want {
		t.Errorf("beyond = %s, want %s", got, want)
	}
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A drop carries the SDK's secret judgement of what was sent, and compare notes, as
// schema paths, what the answer kept, so that a drop one example makes and another does
// not is told apart from one every example makes.
func TestDropSecretAndAnswered(t *testing.T) {
	r := parse(t, `{"p":{"password":"x","format":"xml","certs":[{"name":"c1","key":"k"}]}}`)
	r.obj["p"].obj["password"].secret = "sdk: named Password (sent to Azure)"
	a := parse(t, `{"p":{"certs":[{"name":"c1","key":"k"}]}}`)
	var ch changes
	compare("", r, a, &ch)
	if got, want := jsonString(t, ch.drops), `[{"path":"p.format","value":"xml"},{"path":"p.password","value":"x","secret":"sdk: named Password (sent to Azure)"}]`; got != want {
		t.Errorf("drops = %s, want %s", got, want)
	}
	for _, p := range []string{"p", "p.certs", "p.certs[]", "p.certs[].key"} {
		if !ch.answered[p] {
			t.Errorf("answered lacks %s: %v", p, ch.answered)
		}
	}
	if ch.answered["p.format"] || ch.answered["p.password"] {
		t.Errorf("answered holds a drop: %v", ch.answered)
	}
	if got := schemaPath("a.b[name=x].c[2].d[name=y]"); got != "a.b[].c[].d[]" {
		t.Errorf("schemaPath = %s", got)
	}
}
