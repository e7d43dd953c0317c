package azimport

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// fit takes a spec built from Azure's answer (specOf) as Azure gave it and
// makes it what the kind's schema (the CRD the API server checks manifests
// with) accepts, value by value:
//
//   - null, absent and "" are all "not set": dropped;
//   - a number where the schema takes a string is written as a string
//     (Redis answers redisConfiguration values as strings, others answer
//     versions as numbers), and a string holding a number or a boolean where
//     the schema takes one is parsed;
//   - an enum value in another casing than the schema's takes the schema's
//     (ARM compares enum values case-insensitively and may answer in its own
//     casing; the API server does not);
//   - a property name in another casing than the schema's takes the schema's
//     (ARM treats property names case-insensitively);
//   - a property the schema does not have is left out silently: read-only
//     outputs (provisioningState, _rid, _ts) and names aztenant spells as
//     references;
//   - a value the schema requires that Azure did not answer is reported as
//     missed (the API server would refuse the manifest without it);
//   - a value that cannot be fitted without guessing (an object where a
//     string belongs, an enum answered as a number, a value outside the
//     schema's bounds) is left out and reported as missed, with its path, so
//     that the user sets it before applying: the rest of the resource is
//     still imported.
//
// missed is called once per value left out.
func fit(spec map[string]any, s *apiextensionsv1.JSONSchemaProps, missed func(path, why string)) map[string]any {
	f := fitter{missed: missed}
	out, ok := f.value("spec", spec, s)
	m, _ := out.(map[string]any)
	if !ok || m == nil {
		return map[string]any{}
	}
	return m
}

type fitter struct {
	missed func(path, why string)
}

// value fits v at path to s; ok false: left out.
func (f fitter) value(path string, v any, s *apiextensionsv1.JSONSchemaProps) (any, bool) {
	if v == nil {
		return nil, false
	}
	if s == nil || s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields && s.Type == "" {
		return v, true
	}
	if s.XIntOrString {
		switch v.(type) {
		case string, float64, json.Number, int64:
			return v, true
		}
		return f.miss(path, "Azure answered %s where aztenant's kind takes a number or a string", describe(v))
	}
	switch s.Type {
	case "object":
		return f.object(path, v, s)
	case "array":
		return f.array(path, v, s)
	case "string":
		return f.string(path, v, s)
	case "integer":
		return f.integer(path, v, s)
	case "number":
		return f.number(path, v)
	case "boolean":
		return f.boolean(path, v)
	}
	return v, true
}

func (f fitter) miss(path, format string, args ...any) (any, bool) {
	f.missed(path, fmt.Sprintf(format, args...))
	return nil, false
}

func (f fitter) object(path string, v any, s *apiextensionsv1.JSONSchemaProps) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return f.miss(path, "Azure answered %s where aztenant's kind takes an object", describe(v))
	}
	out := make(map[string]any, len(m))
	switch {
	case len(s.Properties) > 0:
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		tried := map[string]bool{} // names Azure answered a value for: a miss is reported there
		// Exact names first, so that an exact name wins over another casing.
		slices.SortFunc(keys, func(a, b string) int {
			_, ea := s.Properties[a]
			_, eb := s.Properties[b]
			if ea != eb {
				if ea {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		for _, k := range keys {
			name, ok := propertyName(s, k)
			if !ok {
				if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
					out[k] = m[k]
				}
				continue // not in the spec: a read-only output, or spelt otherwise by aztenant
			}
			if _, taken := out[name]; taken {
				continue
			}
			if m[k] != nil {
				tried[name] = true
			}
			prop := s.Properties[name]
			if e, ok := f.value(path+"."+name, m[k], &prop); ok {
				out[name] = e
			}
		}
		for _, name := range s.Required {
			if _, ok := out[name]; !ok && !tried[name] && !(path == "spec" && aztenants[name]) {
				f.missed(path+"."+name, "Azure answered no value, and aztenant's kind requires one")
			}
		}
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		for k, e := range m {
			if e, ok := f.value(path+"["+strconv.Quote(k)+"]", e, s.AdditionalProperties.Schema); ok {
				out[k] = e
			}
		}
	default:
		return m, true
	}
	return out, true
}

// aztenants are the spec's own fields, which import sets itself.
var aztenants = map[string]bool{"owner": true, "azureName": true, "operatorSpec": true}

// propertyName is the schema's spelling of Azure's property name k.
func propertyName(s *apiextensionsv1.JSONSchemaProps, k string) (string, bool) {
	if _, ok := s.Properties[k]; ok {
		return k, true
	}
	for name := range s.Properties {
		if strings.EqualFold(name, k) {
			return name, true
		}
	}
	return "", false
}

func (f fitter) array(path string, v any, s *apiextensionsv1.JSONSchemaProps) (any, bool) {
	l, ok := v.([]any)
	if !ok {
		return f.miss(path, "Azure answered %s where aztenant's kind takes a list", describe(v))
	}
	var items *apiextensionsv1.JSONSchemaProps
	if s.Items != nil {
		items = s.Items.Schema
	}
	out := make([]any, 0, len(l))
	for i, e := range l {
		p := fmt.Sprintf("%s[%d]", path, i)
		if e == nil {
			f.missed(p, "Azure answered null in a list")
			continue
		}
		if e, ok := f.value(p, e, items); ok {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return out, len(l) == 0 && (s.MinItems == nil || *s.MinItems == 0) // Azure's empty list; one emptied by misses is left out
	}
	if s.MaxItems != nil && int64(len(out)) > *s.MaxItems {
		return f.miss(path, "Azure answered %d items where aztenant's kind takes at most %d", len(out), *s.MaxItems)
	}
	if s.MinItems != nil && int64(len(out)) < *s.MinItems {
		return f.miss(path, "Azure answered %d items where aztenant's kind takes at least %d", len(out), *s.MinItems)
	}
	if s.XListType != nil && (*s.XListType == "set" || *s.XListType == "map") {
		if dup := duplicate(out, s.XListMapKeys, *s.XListType == "map"); dup != "" {
			return f.miss(path, "Azure answered %s twice where aztenant's kind takes each once", dup)
		}
	}
	return out, true
}

// duplicate is the first element (or map key) that l holds twice, "" when none.
func duplicate(l []any, keys []string, byKeys bool) string {
	seen := sets.New[string]()
	for _, e := range l {
		k := e
		if byKeys {
			m, _ := e.(map[string]any)
			id := make([]any, len(keys))
			for i, key := range keys {
				id[i] = m[key]
			}
			k = id
		}
		b, _ := json.Marshal(k)
		if seen.Has(string(b)) {
			return string(b)
		}
		seen.Insert(string(b))
	}
	return ""
}

func (f fitter) string(path string, v any, s *apiextensionsv1.JSONSchemaProps) (any, bool) {
	var str string
	switch x := v.(type) {
	case string:
		str = x
	case float64, json.Number, int64, bool:
		if len(s.Enum) > 0 {
			return f.miss(path, "Azure answered %s where aztenant's kind takes one of %s (the number cannot be read as one of them without guessing)", describe(v), enumList(s))
		}
		str = scalarString(x)
	default:
		return f.miss(path, "Azure answered %s where aztenant's kind takes a string", describe(v))
	}
	if str == "" {
		return nil, false // not set
	}
	if len(s.Enum) > 0 {
		e, ok := enumValue(s, str)
		if !ok {
			return f.miss(path, "Azure answered %s where aztenant's kind takes one of %s", shown(str), enumList(s))
		}
		str = e
	}
	if n := int64(utf8.RuneCountInString(str)); s.MaxLength != nil && n > *s.MaxLength || s.MinLength != nil && n < *s.MinLength {
		return f.miss(path, "Azure answered a string of %d characters where aztenant's kind takes %s", n, lengthBounds(s))
	}
	if s.Pattern != "" {
		if re, err := pattern(s.Pattern); err == nil && !re.MatchString(str) {
			return f.miss(path, "Azure answered a string of %d characters that does not match aztenant's pattern %s", utf8.RuneCountInString(str), s.Pattern)
		}
	}
	return str, true
}

func scalarString(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// enumValue is the schema's spelling of Azure's enum value str.
func enumValue(s *apiextensionsv1.JSONSchemaProps, str string) (string, bool) {
	var fold string
	for _, e := range s.Enum {
		var want string
		if json.Unmarshal(e.Raw, &want) != nil {
			continue
		}
		if want == str {
			return want, true
		}
		if fold == "" && strings.EqualFold(want, str) {
			fold = want
		}
	}
	return fold, fold != ""
}

func enumList(s *apiextensionsv1.JSONSchemaProps) string {
	vals := make([]string, 0, len(s.Enum))
	for _, e := range s.Enum {
		vals = append(vals, string(e.Raw))
	}
	return strings.Join(vals, ", ")
}

func lengthBounds(s *apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.MinLength != nil && s.MaxLength != nil:
		return fmt.Sprintf("%d to %d", *s.MinLength, *s.MaxLength)
	case s.MaxLength != nil:
		return fmt.Sprintf("at most %d", *s.MaxLength)
	case s.MinLength != nil:
		return fmt.Sprintf("at least %d", *s.MinLength)
	}
	return "any length"
}

var patterns sync.Map // pattern -> *regexp.Regexp or error

func pattern(p string) (*regexp.Regexp, error) {
	if re, ok := patterns.Load(p); ok {
		if r, ok := re.(*regexp.Regexp); ok {
			return r, nil
		}
		return nil, re.(error)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		patterns.Store(p, err)
		return nil, err
	}
	patterns.Store(p, re)
	return re, nil
}

func (f fitter) integer(path string, v any, s *apiextensionsv1.JSONSchemaProps) (any, bool) {
	var n int64
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return f.miss(path, "Azure answered %s where aztenant's kind takes a whole number", describe(v))
		}
		n = int64(x)
	case int64:
		n = x
	case string, json.Number:
		str := strings.TrimSpace(scalarString(x))
		if str == "" {
			return nil, false // not set
		}
		i, err := strconv.ParseInt(str, 10, 64)
		if err != nil {
			fl, ferr := strconv.ParseFloat(str, 64)
			if ferr != nil || fl != math.Trunc(fl) || fl < math.MinInt64 || fl >= math.MaxInt64 {
				return f.miss(path, "Azure answered %s where aztenant's kind takes a whole number", describe(v))
			}
			i = int64(fl)
		}
		n = i
	default:
		return f.miss(path, "Azure answered %s where aztenant's kind takes a whole number", describe(v))
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e apiextensionsv1.JSON) bool { return strings.TrimSpace(string(e.Raw)) == strconv.FormatInt(n, 10) }) {
		return f.miss(path, "Azure answered %d where aztenant's kind takes one of %s", n, enumList(s))
	}
	if s.Format == "int32" && (n < math.MinInt32 || n > math.MaxInt32) {
		return f.miss(path, "Azure answered %d, outside the 32-bit whole numbers aztenant's kind takes", n)
	}
	if s.Maximum != nil && float64(n) > *s.Maximum || s.Minimum != nil && float64(n) < *s.Minimum {
		return f.miss(path, "Azure answered %d, outside aztenant's bounds", n)
	}
	return n, true
}

func (f fitter) number(path string, v any) (any, bool) {
	switch x := v.(type) {
	case float64, int64:
		return x, true
	case string, json.Number:
		str := strings.TrimSpace(scalarString(x))
		if str == "" {
			return nil, false
		}
		if fl, err := strconv.ParseFloat(str, 64); err == nil && !math.IsInf(fl, 0) && !math.IsNaN(fl) {
			return fl, true
		}
	}
	return f.miss(path, "Azure answered %s where aztenant's kind takes a number", describe(v))
}

func (f fitter) boolean(path string, v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch {
		case strings.EqualFold(strings.TrimSpace(x), "true"):
			return true, true
		case strings.EqualFold(strings.TrimSpace(x), "false"):
			return false, true
		case strings.TrimSpace(x) == "":
			return nil, false
		}
	}
	return f.miss(path, "Azure answered %s where aztenant's kind takes true or false", describe(v))
}

// shown is an enum value Azure answered, for a message: quoted when short.
func shown(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		return describe(s)
	}
	return strconv.Quote(s)
}

// describe says what v is, for a message: its JSON kind, with numbers and
// booleans shown and strings only when short and where a string belongs
// (enums): a string where an object belongs may be a secret Azure answered
// in a field aztenant reads from a Secret.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("a string of %d characters", utf8.RuneCountInString(x))
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	case float64, json.Number, int64:
		return "the number " + scalarString(x)
	}
	return fmt.Sprintf("a %T", v)
}
