package emit

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/config"
	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// answeredRef is one field the config says Azure answers in its own way
// (model.Field.Answered), at its PUT body path.
type answeredRef struct {
	Path string
	*model.AnswerFlag
	// Values are the field's enum values in the SDK's order (PossibleXxxValues), for
	// normalize: intEnum.
	Values []string
}

// findAnswered returns the body paths of the fields the config flags with answered,
// wherever their types appear in body: lists are crossed, a map's values are "*", as in
// findNames. The resource's own location and tags count. It fails on a flagged field
// the body never reaches (read-only, skipped, secret, or behind an ID kept alone), on
// intEnum for a field that is not an enum, and on openValues or openSet for one that is
// not a list.
func (k *Kind) findAnswered(body *model.Type) ([]answeredRef, error) {
	var out []answeredRef
	reached := map[string]bool{}
	var bad error
	onPath := map[string]bool{}
	inVariant := 0
	var walk func(t *model.Type, path string)
	walk = func(t *model.Type, path string) {
		if t == nil || onPath[t.Name] || bad != nil {
			return
		}
		onPath[t.Name] = true
		defer delete(onPath, t.Name)
		for i := range t.Fields {
			f := &t.Fields[i]
			if f.Skip != nil || f.ReadOnly || f.AdditionalProperties || f.JSON == "" || f.Secret != nil {
				continue
			}
			p := join(path, f.JSON)
			// A spec fact on an object holding secrets is left out: its secrets are
			// write-only already (digested), and the spec may hold nothing else of it.
			if f.Answered == nil && inVariant == 0 && !k.mayHoldSecret(f.Type, map[string]bool{}) &&
				slices.ContainsFunc(k.SpecNotReturned, func(s string) bool { return strings.ReplaceAll(s, "[]", "") == p }) {
				out = append(out, answeredRef{Path: p, AnswerFlag: &model.AnswerFlag{NotReturned: true, Flag: model.Flag{Source: "specs",
					Reason: "Azure's REST API specs: Azure takes it on a write and never returns it (the PUT's definition has it, the GET's does not, or its x-ms-mutability lacks read); " + k.SpecSource}}})
			}
			if a := f.Answered; a != nil {
				ref := answeredRef{Path: p, AnswerFlag: a}
				if bad = k.checkAnswered(t, f, &ref); bad != nil {
					return
				}
				reached[t.Name+"."+f.JSON] = true
				out = append(out, ref)
			}
			r := f.Type
			for r.Kind == model.KindSlice || r.Kind == model.KindMap {
				if r.Kind == model.KindMap {
					p += ".*"
				}
				r = *r.Elem
			}
			if r.Kind == model.KindNamed && f.IDOnly == nil {
				walk(k.Types[r.Name], p)
			}
		}
		if u := t.Union; u != nil {
			if u.Base != "" {
				walk(k.Types[u.Base], path)
			}
			inVariant++ // a variant's fields are not typed in the spec (free-form JSON)
			for _, v := range u.Variants {
				walk(k.Types[v.Type], path)
			}
			inVariant--
		}
	}
	walk(body, "")
	if bad != nil {
		return nil, bad
	}
	var missed []string
	for name, t := range k.Types {
		for _, f := range t.Fields {
			if f.Answered != nil && !reached[name+"."+f.JSON] {
				missed = append(missed, name+"."+f.JSON)
			}
		}
	}
	if len(missed) > 0 {
		sort.Strings(missed)
		return nil, fmt.Errorf("%s/%s: fields with answered that the create body does not reach: %s", k.Group.Name, k.Kind.Kind, strings.Join(missed, ", "))
	}
	// A type met at two paths gives two entries; one path may be met twice (union variants).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	uniq := out[:0]
	for i, r := range out {
		if i == 0 || r.Path != out[i-1].Path {
			uniq = append(uniq, r)
		}
	}
	return uniq, nil
}

// checkAnswered checks a flagged field's type against its facts and reads an enum's
// values for intEnum.
func (k *Kind) checkAnswered(owner *model.Type, f *model.Field, ref *answeredRef) error {
	where := fmt.Sprintf("%s/%s: %s.%s", k.Group.Name, k.Kind.Kind, owner.Name, f.JSON)
	if ref.Normalize == "intEnum" {
		e := k.Types[f.Type.Name]
		if f.Type.Kind != model.KindNamed || e == nil || e.Enum == nil || len(e.Enum.Values) == 0 {
			return fmt.Errorf("%s: answered.normalize intEnum on a field that is not an enum", where)
		}
		for _, v := range e.Enum.Values {
			ref.Values = append(ref.Values, v.Value)
		}
	}
	if (len(ref.OpenValues) > 0 || ref.OpenSet) && f.Type.Kind != model.KindSlice {
		return fmt.Errorf("%s: answered.openValues or openSet on a field that is not a list", where)
	}
	return nil
}

// answeredFacts is the Go of the adapter's Facts entries for its answered fields, each
// with its reason: Normalize, NotReturned, Forced, OpenValues and OpenSets.
func answeredFacts(refs []answeredRef) []string {
	var normalize, notReturned, forced, openValues, openSets []string
	for _, r := range refs {
		why := wrap("\t\t\t", r.Reason)
		if r.Normalize != "" {
			n := "{Name: reconcilers." + config.Normalizers[r.Normalize]
			if len(r.Values) > 0 {
				n += fmt.Sprintf(", Values: %#v", r.Values)
			}
			normalize = append(normalize, fmt.Sprintf("%s\t\t\t%q: %s},\n", why, r.Path, n))
		}
		if r.NotReturned {
			notReturned = append(notReturned, fmt.Sprintf("%s\t\t\t%q,\n", why, r.Path))
		}
		if r.Forced != nil {
			forced = append(forced, fmt.Sprintf("%s\t\t\t%q: %s,\n", why, r.Path, goLiteral(r.Forced)))
		}
		if len(r.OpenValues) > 0 {
			vals := make([]string, 0, len(r.OpenValues))
			for _, v := range r.OpenValues {
				vals = append(vals, goLiteral(v))
			}
			openValues = append(openValues, fmt.Sprintf("%s\t\t\t%q: {%s},\n", why, r.Path, strings.Join(vals, ", ")))
		}
		if r.OpenSet {
			openSets = append(openSets, fmt.Sprintf("%s\t\t\t%q,\n", why, r.Path))
		}
	}
	var out []string
	add := func(head string, entries []string) {
		if len(entries) > 0 {
			out = append(out, head+"{\n"+strings.Join(entries, "")+"\t\t}")
		}
	}
	add("Normalize: map[string]reconcilers.Normalizer", normalize)
	add("NotReturned: []string", notReturned)
	add("Forced: map[string]any", forced)
	add("OpenValues: map[string][]any", openValues)
	add("OpenSets: []string", openSets)
	return out
}

// goLiteral is the Go of a JSON value (as sigs.k8s.io/yaml decodes one): maps with
// their keys sorted.
func goLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return strconv.Quote(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, goLiteral(e))
		}
		return "[]any{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for key := range x {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, key := range keys {
			parts = append(parts, strconv.Quote(key)+": "+goLiteral(x[key]))
		}
		return "map[string]any{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%#v", v)
}

// forcedMarker is the CEL rule refusing another value than the one Azure keeps in a
// field (answered.forced), its message saying what to write.
func forcedMarker(f *model.Field) string {
	v := f.Answered.Forced
	lit := goLiteral(v)
	if s, ok := v.(string); ok {
		lit = "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
	}
	msg := fmt.Sprintf("Azure keeps %s %s whatever is written: leave it out or set it to %s", f.JSON, goLiteral(v), goLiteral(v))
	return fmt.Sprintf("+kubebuilder:validation:XValidation:rule=%q,message=%q", "self == "+lit, msg)
}

// mayHoldSecret is holdsSecret that also looks into a union's base and variants.
func (k *Kind) mayHoldSecret(r model.TypeRef, seen map[string]bool) bool {
	for r.Kind == model.KindSlice || r.Kind == model.KindMap {
		r = *r.Elem
	}
	t := k.Types[r.Name]
	if r.Kind != model.KindNamed || t == nil || seen[r.Name] {
		return false
	}
	seen[r.Name] = true
	for _, f := range t.Fields {
		if f.Secret != nil || k.mayHoldSecret(f.Type, seen) {
			return true
		}
	}
	if u := t.Union; u != nil {
		if u.Base != "" && k.mayHoldSecret(model.TypeRef{Kind: model.KindNamed, Name: u.Base}, seen) {
			return true
		}
		for _, v := range u.Variants {
			if k.mayHoldSecret(model.TypeRef{Kind: model.KindNamed, Name: v.Type}, seen) {
				return true
			}
		}
	}
	return false
}
