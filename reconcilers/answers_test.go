package reconcilers

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

func jsonBody(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func testAnswers(t *testing.T, desired, actual string) answers {
	t.Helper()
	return answers{key: []byte("uid-1"), desired: jsonBody(t, desired), actual: jsonBody(t, actual), open: map[string]bool{}}
}

// A digest is keyed, short, the same for the same value whatever the key
// order, number type or null-versus-absent, and another for another value,
// path or key.
func TestAnswersDigest(t *testing.T) {
	a := answers{key: []byte("uid-1")}
	d := a.digest("properties.x", map[string]any{"a": 1, "b": "v"})
	if !strings.HasPrefix(d, "h1:") || len(d) != 25 {
		t.Fatalf("digest %q: want h1: and 22 characters", d)
	}
	same := []any{
		map[string]any{"b": "v", "a": float64(1)},
		map[string]any{"b": "v", "a": int64(1), "c": nil},
	}
	for _, v := range same {
		if got := a.digest("properties.x", v); got != d {
			t.Errorf("%v: %s, want %s", v, got, d)
		}
	}
	for name, got := range map[string]string{
		"another value": a.digest("properties.x", map[string]any{"a": 2, "b": "v"}),
		"another path":  a.digest("properties.y", map[string]any{"a": 1, "b": "v"}),
		"another key":   answers{key: []byte("uid-2")}.digest("properties.x", map[string]any{"a": 1, "b": "v"}),
	} {
		if got == d {
			t.Errorf("%s gives the same digest", name)
		}
	}
	// Named lists are sets: any order.
	l1 := []any{map[string]any{"name": "a", "v": 1.0}, map[string]any{"name": "b", "v": 2.0}}
	l2 := []any{map[string]any{"name": "b", "v": 2.0}, map[string]any{"name": "a", "v": 1.0}}
	if a.digest("p", l1) != a.digest("p", l2) {
		t.Error("a named list in another order gives another digest")
	}
	if a.digest("p", []any{1.0, 2.0}) == a.digest("p", []any{2.0, 1.0}) {
		t.Error("an unnamed list in another order gives the same digest: order may mean something there")
	}
}

// F6: the projection keeps only what the spec names, so read-only and
// volatile fields Azure adds beside it never change a digest: an entry over
// an object stands when only those change.
func TestAnswersProjectionIgnoresReadOnly(t *testing.T) {
	desired := `{"properties":{"sku":{"name":"standard"},"subnets":[{"name":"a","prefix":"10.0.0.0/24"}]}}`
	a := testAnswers(t, desired, `{"properties":{"sku":{"name":"premium","family":"A"},"provisioningState":"Succeeded","_ts":1,"subnets":[{"name":"a","prefix":"10.0.0.0/24","etag":"1"},{"name":"azure-added","prefix":"10.0.9.0/24","etag":"2"}]}}`)
	entries := []azurev1alpha1.KeptPath{a.entry("properties")}
	b := testAnswers(t, desired, `{"properties":{"sku":{"name":"premium","family":"B"},"provisioningState":"Updating","_ts":2,"subnets":[{"name":"azure-added","prefix":"10.0.8.0/24","etag":"4"},{"name":"a","prefix":"10.0.0.0/24","etag":"3"}]}}`)
	if !b.keeps(entries, "properties.sku.name") {
		t.Error("read-only fields, an element's contents the spec does not name and the order of a named list changed the answer's digest")
	}
	c := testAnswers(t, desired, `{"properties":{"sku":{"name":"basic"},"subnets":[{"name":"a","prefix":"10.0.0.0/24"},{"name":"azure-added"}]}}`)
	if c.keeps(entries, "properties.sku.name") {
		t.Error("a changed value the spec names is still kept")
	}
	d := testAnswers(t, desired, `{"properties":{"sku":{"name":"premium"},"subnets":[{"name":"a","prefix":"10.0.0.0/24"}]}}`)
	if d.keeps(entries, "properties.sku.name") {
		t.Error("an element Azure removed from a closed list is still kept")
	}
	// In an open set, elements the spec does not name are not its business.
	d.open = map[string]bool{"properties.subnets": true}
	b.open = d.open
	open := []azurev1alpha1.KeptPath{b.entry("properties")}
	if !d.keeps(open, "properties.sku.name") {
		t.Error("an element of an open set the spec does not name changed the answer's digest")
	}
}

// The decision at one reported path (the design's §1.4): no entry, or an
// entry made for another desired value, is a difference; Azure's known
// answer to this spec is in sync; another answer since is drift. The entry
// is the one with the longest path covering the path.
func TestAnswersDecision(t *testing.T) {
	desired := `{"properties":{"enableSoftDelete":false,"sku":{"name":"standard"},"other":"x"}}`
	answer := `{"properties":{"enableSoftDelete":true,"sku":{"name":"standard"},"other":"x"}}`
	a := testAnswers(t, desired, answer)
	entries := []azurev1alpha1.KeptPath{a.entry("properties.enableSoftDelete")}
	if e := entries[0]; e.Value != "true" || e.Answered == "" || e.Sent == "" || e.Sent == e.Answered {
		t.Fatalf("entry %+v", e)
	}
	if !a.keeps(entries, "properties.enableSoftDelete") {
		t.Error("Azure's known answer to this spec is a difference")
	}
	if a.keeps(entries, "properties.other") || a.keeps(entries, "properties.enableSoftDeleteX") {
		t.Error("a path no entry covers is kept")
	}
	spec := testAnswers(t, `{"properties":{"enableSoftDelete":null,"sku":{"name":"standard"}}}`, answer)
	if spec.keeps(entries, "properties.enableSoftDelete") {
		t.Error("a spec changed at the path is not compared afresh")
	}
	portal := testAnswers(t, desired, `{"properties":{"enableSoftDelete":"yes"}}`)
	if portal.keeps(entries, "properties.enableSoftDelete") {
		t.Error("a changed answer (a portal edit) is kept")
	}
	// Azure has nothing where the spec has a value: recorded as such.
	none := testAnswers(t, `{"properties":{"options":{"throughput":400}}}`, `{"properties":{}}`)
	e := none.entry("properties.options")
	if e.Answered != "" || e.Value != "" {
		t.Errorf("nothing answered: %+v", e)
	}
	if !none.keeps([]azurev1alpha1.KeptPath{e}, "properties.options.throughput") {
		t.Error("a value Azure never returns is a difference under its entry")
	}
	if got := testAnswers(t, `{"properties":{"options":{"throughput":400}}}`, `{"properties":{"options":{"throughput":500}}}`); got.keeps([]azurev1alpha1.KeptPath{e}, "properties.options.throughput") {
		t.Error("a value appearing where Azure had none is kept")
	}
	// Longest prefix: the finer entry decides.
	outer := a.entry("properties")
	outer.Answered = "h1:stale"
	if !a.keeps([]azurev1alpha1.KeptPath{outer, entries[0]}, "properties.enableSoftDelete") {
		t.Error("the coarser entry decided over the finer one")
	}
	if covering([]azurev1alpha1.KeptPath{{Path: comparison.Body}}, "anything.at[all]") == nil {
		t.Error("(body) covers every path")
	}
}

// Past 64 entries, entries merge into their deepest common parents (and at
// worst into the body); the merged entries still decide right, more coarsely.
func TestAnswersOverflowCollapses(t *testing.T) {
	var rules, answered []string
	for i := range 100 {
		rules = append(rules, fmt.Sprintf(`{"name":"r%d","priority":%d}`, i, i))
		answered = append(answered, fmt.Sprintf(`{"name":"r%d","priority":%d,"etag":"e"}`, i, i+1000))
	}
	desired := `{"location":"westeurope","properties":{"rules":[` + strings.Join(rules, ",") + `],"mode":"a"}}`
	actual := `{"location":"westeurope","properties":{"rules":[` + strings.Join(answered, ",") + `],"mode":"b"}}`
	a := testAnswers(t, desired, actual)
	diffs := comparison.Differences(a.desired, a.actual, comparison.Rules{})
	if len(diffs) != 101 {
		t.Fatalf("%d differences, want 101", len(diffs))
	}
	rec := a.record(diffs)
	if len(rec) > maxKept {
		t.Fatalf("%d entries, want at most %d", len(rec), maxKept)
	}
	var paths []string
	for _, e := range rec {
		paths = append(paths, e.Path)
	}
	if !slices.Contains(paths, "properties.mode") || !slices.Contains(paths, "properties.rules") {
		t.Errorf("entries %v: want the rules merged into properties.rules, properties.mode kept apart", paths)
	}
	for _, d := range diffs {
		if !a.keeps(rec, d.Path) {
			t.Errorf("%s is not kept after the collapse", d.Path)
		}
	}
	// Any change inside a merged entry is one difference (a write).
	changed := testAnswers(t, desired, strings.Replace(actual, `"priority":1050`, `"priority":7`, 1))
	if changed.keeps(rec, "properties.rules[name=r50].priority") {
		t.Error("a change inside a merged entry is kept")
	}
	// Volatile fields inside it are not.
	volatile := testAnswers(t, desired, strings.ReplaceAll(actual, `"etag":"e"`, `"etag":"f"`))
	if !volatile.keeps(rec, "properties.rules[name=r50].priority") {
		t.Error("a read-only field inside a merged entry changed its digest")
	}
}

// F8: the record never shows a secret: no value at, above or under a
// write-only path, nor where the spec's value or Azure's holds a value read
// through Hooks.Resolve (a Secret's); digests are keyed, so a guess cannot be
// checked without the key.
func TestAnswersNoSecretInStatus(t *testing.T) {
	const password = "s3cret-Passw0rd"
	desired := jsonBody(t, fmt.Sprintf(`{"properties":{"administratorLoginPassword":%q,"settings":{"db":"Server=x;Password=%s","plain":"one"},"level":"a","echo":"e"}}`, password, password))
	actual := jsonBody(t, fmt.Sprintf(`{"properties":{"settings":{"db":"Server=y;Password=%s","plain":"two"},"level":"b","echo":%q}}`, password, password))
	a := answers{key: []byte("secret-uid"), desired: desired, actual: actual, open: map[string]bool{},
		writeOnly: []string{"properties.administratorLoginPassword"}, secrets: []string{password}}
	rec := a.record(comparison.Differences(desired, actual, comparison.Rules{Ignore: a.writeOnly}))
	rec = append(rec, a.entry("properties"), a.entry("properties.settings"), a.entry("properties.administratorLoginPassword"))
	shown := map[string]string{}
	for _, e := range rec {
		shown[e.Path] = e.Value
	}
	want := map[string]string{
		"properties.level":                      `"b"`,
		"properties.settings.plain":             `"two"`,
		"properties.settings.db":                "", // the spec's value holds the Secret's
		"properties.echo":                       "", // Azure's does
		"properties.settings":                   "",
		"properties":                            "", // holds the write-only path
		"properties.administratorLoginPassword": "",
	}
	for p, v := range want {
		if got, ok := shown[p]; !ok || got != v {
			t.Errorf("%s: shown %q (recorded %v), want %q", p, got, ok, v)
		}
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), password) {
		t.Fatalf("the record shows the secret: %s", raw)
	}
	other := a
	other.key = []byte("object-uid")
	if a.sent("properties.administratorLoginPassword") == other.sent("properties.administratorLoginPassword") {
		t.Error("the digest does not depend on the key")
	}
}

// A value shown is cut to 128 characters.
func TestAnswersValueCut(t *testing.T) {
	long := strings.Repeat("é", 300)
	v := keptValue(long)
	if n := len([]rune(v)); n != keptValueLimit+1 || !strings.HasSuffix(v, "…") {
		t.Errorf("%d characters, want %d and an ellipsis", n, keptValueLimit+1)
	}
}
