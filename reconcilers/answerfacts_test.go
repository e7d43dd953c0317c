package reconcilers

import (
	"encoding/json"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// A value Azure keeps whatever is written is refused, naming the path and
// what to write instead; the value Azure keeps, or none, is not.
func TestNormalizeForcedRefused(t *testing.T) {
	f := Facts{Forced: map[string]any{"properties.enableSoftDelete": true}}
	err := refuseForced(f, map[string]any{"properties": map[string]any{"enableSoftDelete": false}})
	if err == nil || !strings.Contains(err.Error(), "properties.enableSoftDelete is false") || !strings.Contains(err.Error(), "set it to true") {
		t.Errorf("refused with %v, want the path, its value and what to write", err)
	}
	for _, ok := range []map[string]any{{"properties": map[string]any{"enableSoftDelete": true}}, {"properties": map[string]any{}}, {}} {
		if err := refuseForced(f, ok); err != nil {
			t.Errorf("%v refused: %v", ok, err)
		}
	}
}

// A change of a value Azure does not answer is still written: the digest of
// the write keeps it, as it keeps write-only values.
func TestNormalizeNotReturnedDigested(t *testing.T) {
	f := Facts{WriteOnly: []string{"properties.password"}, NotReturned: []string{"properties.options"}}
	paths := digestedPaths(f)
	a := writeOnlyHash([]byte("k"), map[string]any{"properties": map[string]any{"options": map[string]any{"throughput": 400.0}}}, paths)
	b := writeOnlyHash([]byte("k"), map[string]any{"properties": map[string]any{"options": map[string]any{"throughput": 500.0}}}, paths)
	if a == "" || a == b {
		t.Errorf("digests %q and %q: a changed unanswered value must change the digest", a, b)
	}
	if len(f.WriteOnly) != 1 {
		t.Error("digestedPaths changed the kind's WriteOnly")
	}
}

// answerKind is a kind whose body is {"location": ..., "properties": spec}.
type answerKind struct{ facts Facts }

func (answerKind) New() azurev1alpha1.Resource { return &resourcesv1alpha1.ResourceGroup{} }
func (k answerKind) Facts() Facts              { return k.facts }
func (answerKind) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
	rg := obj.(*resourcesv1alpha1.ResourceGroup)
	raw, err := json.Marshal(rg.Spec)
	if err != nil {
		return nil, err
	}
	var props map[string]any
	if err := json.Unmarshal(raw, &props); err != nil {
		return nil, err
	}
	return map[string]any{"location": "westeurope", "properties": props}, nil
}
func (answerKind) Observe(azurev1alpha1.Resource, map[string]any) {}
func (answerKind) Hooks() Hooks                                   { return Hooks{} }

// checkKind refuses facts about answers that name no table entry or a path no
// spec of the kind reaches.
func TestNormalizeFactsChecked(t *testing.T) {
	base := Facts{ResourceType: "Microsoft.Resources/resourceGroups", APIVersion: "2024-03-01"}
	with := func(f func(*Facts)) Facts {
		c := base
		f(&c)
		return c
	}
	for _, c := range []struct {
		name  string
		facts Facts
		want  string
	}{
		{"none", base, ""},
		{"paths the spec reaches", with(func(f *Facts) {
			f.Normalize = map[string]Normalizer{"location": {Name: NormalizeLocation}, "properties.tags.*": {Name: NormalizeCase}}
			f.NotReturned = []string{"properties.azureName"}
			f.Forced = map[string]any{"properties.location": "westeurope"}
			f.OpenValues = map[string][]any{"properties.tags": {"x"}}
		}), ""},
		{"an entry the table lacks", with(func(f *Facts) { f.Normalize = map[string]Normalizer{"location": {Name: "upper"}} }), `no entry "upper"`},
		{"an integer enum without values", with(func(f *Facts) { f.Normalize = map[string]Normalizer{"location": {Name: NormalizeIntEnum}} }), "needs the enum's values"},
		{"values for another entry", with(func(f *Facts) {
			f.Normalize = map[string]Normalizer{"location": {Name: NormalizeXML, Values: []string{"a"}}}
		}), "only intEnum"},
		{"a path no spec reaches", with(func(f *Facts) { f.NotReturned = []string{"properties.nonesuch"} }), "properties.nonesuch"},
		{"a list selector", with(func(f *Facts) { f.NotReturned = []string{"properties.tags[0]"} }), "not a dotted body path"},
		{"a forced object", with(func(f *Facts) { f.Forced = map[string]any{"location": map[string]any{}} }), "not a boolean"},
		{"no open values", with(func(f *Facts) { f.OpenValues = map[string][]any{"properties.tags": nil} }), "no elements"},
	} {
		err := checkKind(answerKind{facts: c.facts})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}
