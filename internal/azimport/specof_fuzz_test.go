package azimport

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// FuzzImportSpecOf turns arbitrary JSON objects, seeded with Azure's response
// examples and the shapes Azure also gives (nulls everywhere, numbers and
// booleans as strings, empty lists as null, property names in another
// casing, locations by display name), into the spec of the kind of an ARM
// type, as `aztenant import` does. It must not panic; a value left out must
// be reported with its path; the manifest must decode into the kind's Go
// type, be the same when imported twice, carry no string Azure did not
// answer (aztenant's owner and azureName aside) and no tag of aztenant's
// own. When every value the kind requires was answered, the manifest must
// also pass the kind's CRD schema (what the API server checks before it
// admits a manifest: types, enums, lengths, patterns, bounds; CEL rules
// aside), and importing its own spec again must give it back with nothing
// missed.
func FuzzImportSpecOf(f *testing.F) {
	im := newImporter(f, nil)
	// The CRDs are read here, not in the first input: a worker's input
	// must finish in 10 s, and reading them takes seconds with coverage on.
	if _, err := specSchemas(); err != nil {
		f.Fatal(err)
	}
	for _, a := range answers(f) {
		f.Add(a.Type, []byte(a.Body))
		var body any
		if err := json.Unmarshal(a.Body, &body); err != nil {
			f.Fatal(err)
		}
		for _, v := range variants(body) {
			raw, _ := json.Marshal(v)
			f.Add(a.Type, raw)
		}
	}
	f.Add("", []byte(`{}`))
	f.Add("Microsoft.Resources/resourceGroups", []byte(`{"tags":null,"properties":null,"location":null}`))
	f.Add("Microsoft.Resources/resourceGroups", []byte(`{"tags":{"aztenant.io/owner":"x","Aztenant.IO/created-for":"y"},"location":"West Europe"}`))
	kindsByType := im.kinds
	all := im.Registry.Kinds()
	f.Fuzz(func(t *testing.T, typ string, raw []byte) {
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil || body == nil {
			return // get() reports a body that is not an object
		}
		k, ok := kindsByType[strings.ToLower(typ)]
		if !ok {
			h := fnv.New32a()
			h.Write([]byte(typ))
			k = all[int(h.Sum32()%uint32(len(all)))]
		}
		gvk := im.Registry.GroupVersionKind(k)
		im.res = Result{}
		spec := im.specFor("/x", gvk, body)
		findings := im.res.Findings
		for _, f := range findings {
			if f.Missed && !strings.HasPrefix(f.Message, "spec") {
				t.Fatalf("%s: a missed value without its path: %s", gvk.Kind, f.Message)
			}
		}
		if again := im.specFor("/x", gvk, body); !jsonEqual(again, spec) {
			t.Fatalf("%s: two imports differ", gvk.Kind)
		}
		withOwner(spec, k)
		u, err := im.decode(gvk, "x", spec)
		if err != nil {
			t.Fatalf("%s: does not fit its Go type: %v\nspec %s", gvk.Kind, err, mustJSON(spec))
		}
		got, _ := u.Object["spec"].(map[string]any)
		complete := !slices.ContainsFunc(findings, func(f Finding) bool { return f.Missed && strings.Contains(f.Message, "requires one") })
		if errs := validateSpec(t, gvk, got); len(errs) > 0 && complete {
			t.Fatalf("%s: the API server would refuse the spec, and no required value was reported missing: %v\nspec %s", gvk.Kind, errs, mustJSON(got))
		}

		// Imported again, a complete manifest is what it is, with nothing missed.
		if complete {
			s, err := specSchema(gvk)
			if err != nil {
				t.Fatal(err)
			}
			refit := fit(clone(got), s, func(path, why string) { t.Fatalf("%s: refitting its own spec misses %s: %s", gvk.Kind, path, why) })
			u2, err := im.decode(gvk, "x", refit)
			if err != nil {
				t.Fatalf("%s: refitted spec does not fit: %v", gvk.Kind, err)
			}
			if !jsonEqual(u2.Object["spec"], got) {
				t.Fatalf("%s: importing the manifest's own spec changes it:\n%s\n%s", gvk.Kind, mustJSON(got), mustJSON(u2.Object["spec"]))
			}
		}

		// Nothing invented: each string is one of Azure's, or one made from one.
		from := answered(body)
		for _, own := range []string{"owner", "azureName"} {
			delete(got, own)
		}
		walkStrings(got, func(s string) {
			if !from[strings.ToLower(s)] {
				t.Fatalf("%s: spec value %q is not in Azure's answer %s", gvk.Kind, s, raw)
			}
		})
		if tags, ok := got["tags"].(map[string]any); ok {
			for tk := range tags {
				if strings.HasPrefix(strings.ToLower(tk), "aztenant.io") {
					t.Fatalf("%s: aztenant's tag %s copied", gvk.Kind, tk)
				}
			}
		}
	})
}

// withOwner sets what add sets beside Azure's values: the owner (by name),
// required by every kind that has one.
func withOwner(spec map[string]any, k reconcilers.Kind) {
	if !strings.EqualFold(k.Facts().ResourceType, "Microsoft.Resources/resourceGroups") {
		spec["owner"] = map[string]any{"name": "owner"}
	}
}

// answered are the strings of an answer, lower case, as import may write
// them: as answered, numbers and booleans as strings, references' IDs,
// locations by name.
func answered(v any) map[string]bool {
	out := map[string]bool{"": true}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				out[strings.ToLower(k)] = true // map keys become values nowhere but userAssignedIdentities' references
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			out[strings.ToLower(x)] = true
			out[strings.ToLower(strings.TrimSpace(x))] = true
			out[azurev1alpha1.NormalizeLocation(x)] = true
		case float64, bool:
			out[strings.ToLower(scalarString(x))] = true
		}
	}
	walk(v)
	return out
}

func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	}
}

var validators sync.Map // GroupVersionKind -> validation.SchemaValidator

// validateSpec checks spec against the kind's CRD schema as the API server
// does before it admits a manifest (its CEL rules aside).
func validateSpec(t *testing.T, gvk schema.GroupVersionKind, spec map[string]any) []string {
	v, ok := validators.Load(gvk)
	if !ok {
		s, err := specSchema(gvk)
		if err != nil {
			t.Fatal(err)
		}
		internal := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, internal, nil); err != nil {
			t.Fatal(err)
		}
		sv, _, err := validation.NewSchemaValidator(internal)
		if err != nil {
			t.Fatal(err)
		}
		v, _ = validators.LoadOrStore(gvk, sv)
	}
	// The validator takes JSON's shapes: numbers as float64 or int64.
	var decoded any
	if err := json.Unmarshal([]byte(mustJSON(spec)), &decoded); err != nil {
		t.Fatal(err)
	}
	res := v.(validation.SchemaValidator).Validate(decoded)
	var out []string
	for _, e := range res.Errors {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return out
}

// variants are the shapes Azure gives besides body itself.
func variants(body any) []any {
	m, _ := body.(map[string]any)
	tagsNull := clone(m)
	tagsNull["tags"] = nil
	propsNull := clone(m)
	propsNull["properties"] = nil
	display := clone(m)
	if l, ok := display["location"].(string); ok {
		for _, loc := range azurev1alpha1.Locations {
			if loc.Name == azurev1alpha1.NormalizeLocation(l) {
				display["location"] = loc.DisplayName
			}
		}
	}
	return []any{
		tagsNull, propsNull, display,
		transform(body, func(v any) any { return nil }),                                   // null for every value
		transform(body, numbersAsStrings),                                                 // 5 as "5", true as "true"
		transform(body, stringsAsNumbers),                                                 // "5" as 5
		transform(body, func(v any) any { return emptyAsNull(v) }),                        // [] and {} as null
		renameKeys(body, func(k string) string { return strings.ToUpper(k[:1]) + k[1:] }), // names in another casing
	}
}

// transform applies fn to every scalar (and empty container) under body.
func transform(v any, fn func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return fn(x)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = transform(e, fn)
		}
		return out
	case []any:
		if len(x) == 0 {
			return fn(x)
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = transform(e, fn)
		}
		return out
	}
	return fn(v)
}

func renameKeys(v any, fn func(string) string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "" {
				k = fn(k)
			}
			out[k] = renameKeys(e, fn)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = renameKeys(e, fn)
		}
		return out
	}
	return v
}

func numbersAsStrings(v any) any {
	switch v.(type) {
	case float64, bool:
		return scalarString(v)
	}
	return v
}

func stringsAsNumbers(v any) any {
	if s, ok := v.(string); ok {
		var n float64
		if json.Unmarshal([]byte(s), &n) == nil {
			return n
		}
	}
	return v
}

func emptyAsNull(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return nil
		}
	case []any:
		if len(x) == 0 {
			return nil
		}
	}
	return v
}

func clone(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

func jsonEqual(a, b any) bool {
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	return bytes.Equal(ra, rb)
}

func mustJSON(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
