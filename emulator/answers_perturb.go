package emulator

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Names Perturb uses for what it adds.
const (
	// PerturbDefaultKey is the key Perturb's addDefault adds to an object.
	PerturbDefaultKey = "defaultAddedByAzure"
	// PerturbElement is the name (or string) of the element Perturb's addElement adds.
	PerturbElement = "added-by-azure"
)

// Perturb picks, for a resource of armType written with body (the JSON of its PUT), at
// most one transform per operation in ops (every operation when none) that changes
// something in body's answer, each at its own path, chosen by seed: the same seed, type
// and body give the same transforms. It sees only the body, so its transforms are
// Azure-like, not Azure's: the case of enum-like strings (a letter, then letters, digits,
// _ or -), location names answered as display names, PerturbDefaultKey added to an
// object under properties, PerturbElement added to a list of strings or of named
// objects, a value under properties dropped (and location, for a child type), a named
// list sorted, XML re-indented, a relative ID under a scope or …Id key expanded, a path's
// leading slash trimmed, an enum-like string answered as 0, a boolean forced to its
// opposite, and a value changed after Succeeded. Never id, name, type, tags, identity,
// etag, systemData or provisioningState, nor the name of a list element.
func Perturb(seed uint64, armType string, body []byte, ops ...AnswerOp) ([]AnswerTransform, error) {
	m, err := decodeObject(body)
	if err != nil {
		return nil, fmt.Errorf("perturb %s: body: %w", armType, err)
	}
	if len(ops) == 0 {
		ops = AnswerOps
	}
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(armType)))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	places := walkPlaces(m)
	cands := make([][]AnswerTransform, len(ops))
	for i, op := range ops {
		for _, p := range places {
			if t, ok := perturbAt(op, armType, p, rng); ok {
				t.Type, t.Op, t.Class = armType, op, answerClasses[op]
				t.Source = fmt.Sprintf("Perturb, seed %d", seed)
				cands[i] = append(cands[i], t)
			}
		}
	}
	// The operations with the fewest places choose first, so that one with a single
	// place is not crowded out by one that could have gone elsewhere.
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(cands[order[a]]) < len(cands[order[b]]) })
	picked := make([]*AnswerTransform, len(ops))
	var used []string
	for _, i := range order {
		free := slices.DeleteFunc(slices.Clone(cands[i]), func(t AnswerTransform) bool { return overlaps(used, t.Path) })
		if len(free) == 0 {
			continue
		}
		t := free[rng.IntN(len(free))]
		picked[i] = &t
		used = append(used, t.Path)
	}
	var out []AnswerTransform
	for _, t := range picked {
		if t != nil {
			out = append(out, *t)
		}
	}
	return out, nil
}

// place is one value in a body: its answer path, its own key ("" for a list element),
// its value and whether it is under properties.
type place struct {
	path, key string
	value     any
	props     bool
	top       bool // a key of the body itself
}

// walkPlaces lists a body's places in a fixed order (keys sorted), leaving out what
// Perturb never touches.
func walkPlaces(body map[string]any) []place {
	var out []place
	var walk func(path, key string, v any, props, top bool)
	walk = func(path, key string, v any, props, top bool) {
		out = append(out, place{path: path, key: key, value: v, props: props, top: top})
		switch x := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(x) {
				if !addressableKey(k) || k == "provisioningState" {
					continue
				}
				walk(path+"."+k, k, x[k], props, false)
			}
		case []any:
			sel := elementSelectors(x)
			for i, el := range x {
				walk(path+sel[i], "", el, props, false)
			}
		}
	}
	for _, k := range sortedKeys(body) {
		switch k {
		case "id", "name", "type", "tags", "identity", "etag", "systemData":
			continue
		}
		if addressableKey(k) {
			walk(k, k, body[k], k == "properties", true)
		}
	}
	if _, ok := body["properties"]; !ok {
		out = append(out, place{path: "properties", key: "properties", value: nil, props: true, top: true})
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// addressableKey: a key an answer path can name.
func addressableKey(k string) bool { return k != "" && !strings.ContainsAny(k, ".[]=") }

// elementSelectors names a list's elements: [name=x] when each has a distinct name a
// path can hold, else [i].
func elementSelectors(list []any) []string {
	out := make([]string, len(list))
	seen := map[string]bool{}
	named := len(list) > 0
	for i, el := range list {
		m, _ := el.(map[string]any)
		n, ok := m["name"].(string)
		if !ok || n == "" || strings.ContainsAny(n, "[]") || seen[strings.ToLower(n)] {
			named = false
			break
		}
		seen[strings.ToLower(n)] = true
		out[i] = "[name=" + n + "]"
	}
	if !named {
		for i := range list {
			out[i] = "[" + strconv.Itoa(i) + "]"
		}
	}
	return out
}

// overlaps reports whether path is, is inside, or holds one of used.
func overlaps(used []string, path string) bool {
	for _, u := range used {
		if u == path || within(path, u) || within(u, path) {
			return true
		}
	}
	return false
}

func within(path, parent string) bool {
	rest, ok := strings.CutPrefix(path, parent)
	return ok && rest != "" && (rest[0] == '.' || rest[0] == '[')
}

var enumLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*([_-][A-Za-z0-9]+)*$`)

// enumCandidate: a string that reads like an enum value, at a key that is not a name
// or a location.
func enumCandidate(p place) (string, bool) {
	s, ok := p.value.(string)
	if !ok || len(s) < 2 || len(s) > 64 || !enumLike.MatchString(s) || p.key == "" || p.key == "name" ||
		isLocationKey(p.key) || azurev1alpha1.KnownLocation(s) {
		return "", false
	}
	return s, true
}

func isLocationKey(k string) bool { return k == "location" || k == "locationName" }

// perturbAt is op's transform at p, if op applies there.
func perturbAt(op AnswerOp, armType string, p place, rng *rand.Rand) (AnswerTransform, bool) {
	t := AnswerTransform{Path: p.path}
	s, isString := p.value.(string)
	switch op {
	case OpCase:
		v, ok := enumCandidate(p)
		if !ok {
			return t, false
		}
		var modes []string
		for _, m := range []string{CaseLower, CaseUpper, CaseCamel, CasePascal} {
			if changeCase(v, m) != v {
				modes = append(modes, m)
			}
		}
		if len(modes) == 0 {
			return t, false
		}
		t.Case = modes[rng.IntN(len(modes))]
		return t, true
	case OpDisplayLocation:
		return t, isString && isLocationKey(p.key) && azurev1alpha1.DisplayLocation(s) != s
	case OpAddDefault:
		_, isMap := p.value.(map[string]any)
		absentProps := p.top && p.key == "properties" && p.value == nil
		if !p.props || !isMap && !absentProps {
			return t, false
		}
		t.Path += "." + PerturbDefaultKey
		t.Value = json.RawMessage(`false`)
		return t, true
	case OpAddElement:
		list, ok := p.value.([]any)
		if !ok || len(list) == 0 || !p.props {
			return t, false
		}
		switch {
		case slices.ContainsFunc(list, func(el any) bool { s, _ := el.(string); return strings.HasPrefix(s, "/") }):
			// A list of ARM IDs (a role's assignable scopes, a rule group's workspaces):
			// Azure's examples answer such lists as sent (PutRoleDefinition.json, 2022-04-01:
			// assignableScopes; PrometheusRuleGroups_CreateOrUpdate.json, 2021-07-22-preview:
			// scopes), and an invented scope would be a resource that does not exist.
			return t, false
		case all(list, func(el any) bool { _, ok := el.(string); return ok }):
			t.Value, _ = json.Marshal(PerturbElement)
		case strings.HasPrefix(elementSelectors(list)[0], "[name="):
			t.Value, _ = json.Marshal(map[string]string{"name": PerturbElement})
		default:
			return t, false
		}
		return t, !hasElement(list, mustValue(t.Value))
	case OpDrop:
		if p.props && !p.top && p.key != "" && p.key != "name" {
			return t, true
		}
		return t, p.top && p.key == "location" && strings.Count(armType, "/") > 1
	case OpReorder:
		list, ok := p.value.([]any)
		if !ok || len(list) < 2 || !strings.HasPrefix(elementSelectors(list)[0], "[name=") {
			return t, false
		}
		t.Descending = rng.IntN(2) == 1
		if sameOrder(sortedBy(list, "", t.Descending), list) {
			t.Descending = !t.Descending
		}
		return t, true
	case OpReformatXML:
		return t, isString && strings.HasPrefix(s, "<") && reindentXML(s) != s
	case OpExpandID:
		k := p.key
		idKey := k == "scope" || strings.HasSuffix(k, "Id") || strings.HasSuffix(k, "ID") || strings.HasSuffix(k, "Scope")
		return t, isString && idKey && expandID("/base", s) != s
	case OpTrimSlash:
		return t, isString && p.key == "path" && strings.HasPrefix(s, "/")
	case OpIntEnum:
		v, ok := enumCandidate(p)
		t.Enum = []string{v}
		return t, ok
	case OpForce:
		b, ok := p.value.(bool)
		t.Value, _ = json.Marshal(!b)
		return t, ok
	case OpChangeAfterSucceeded:
		if !p.props || p.key == "name" {
			return t, false
		}
		v, ok := changedScalar(p.value)
		t.Value, _ = json.Marshal(v)
		return t, ok
	}
	return t, false
}

func all(list []any, f func(any) bool) bool {
	for _, el := range list {
		if !f(el) {
			return false
		}
	}
	return true
}

func mustValue(raw json.RawMessage) any {
	v, _ := decodeValue(raw)
	return v
}

func sameOrder(a, b []any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// changedScalar is another value of a scalar's kind: a number plus one (also inside a
// string, as Redis answers "50"), a boolean flipped, a string with "-recomputed".
func changedScalar(v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		return !x, true
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return json.Number(strconv.FormatInt(i+1, 10)), true
		}
		if f, err := x.Float64(); err == nil {
			return json.Number(strconv.FormatFloat(f+1, 'g', -1, 64)), true
		}
	case string:
		if i, err := strconv.ParseInt(x, 10, 64); err == nil {
			return strconv.FormatInt(i+1, 10), true
		}
		if r, _ := utf8.DecodeRuneInString(x); x != "" && !unicode.IsSpace(r) && !slices.Contains([]string{"/", "<"}, string(r)) {
			return x + "-recomputed", true
		}
	}
	return nil, false
}
