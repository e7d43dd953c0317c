package reconcilers

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// checkAnswerFacts refuses a kind's Facts about Azure's answers that cannot be
// applied: a Normalize entry the table (reconcilers/comparison) does not have,
// or NormalizeIntEnum without values (Normalizer.Check); a Forced value that
// is not a JSON scalar; an OpenValues list without elements; a path that is
// not a dotted body path; and a path no spec of the kind reaches, looked for
// in the body Desired builds from a spec with every field set (filledBody).
func checkAnswerFacts(k Kind) error {
	f := k.Facts()
	var paths []string
	for p, n := range f.Normalize {
		if err := n.Check(); err != nil {
			return fmt.Errorf("Facts.Normalize[%q]: %w", p, err)
		}
		paths = append(paths, p)
	}
	paths = append(paths, f.NotReturned...)
	for p, v := range f.Forced {
		switch v.(type) {
		case bool, string, float64, int, int32, int64:
		default:
			return fmt.Errorf("Facts.Forced[%q]: %v is not a boolean, a string or a number", p, v)
		}
		paths = append(paths, p)
	}
	for p, l := range f.OpenValues {
		if len(l) == 0 {
			return fmt.Errorf("Facts.OpenValues[%q]: no elements", p)
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, seg := range strings.Split(p, ".") {
			if seg == "" || strings.ContainsAny(seg, "[]") {
				return fmt.Errorf("answer facts: %q is not a dotted body path (lists are crossed without [ ])", p)
			}
		}
	}
	body, err := filledBody(k)
	if err != nil {
		return fmt.Errorf("answer facts: the paths cannot be checked: %w", err)
	}
	for _, p := range paths {
		if !reaches(body, p) {
			return fmt.Errorf("answer facts: no spec reaches the body path %s", p)
		}
	}
	return nil
}

// reaches says whether body holds a value at a fact path.
func reaches(body map[string]any, path string) bool {
	found := false
	walkPath(body, strings.Split(path, "."), nil, func(_ string, _ map[string]string, v any) {
		found = found || v != nil
	})
	return found
}

// filledBody is the PUT body Desired builds, without resolved references, for
// an object whose spec has every field set: pointers allocated, lists and maps
// of one element, strings "x", numbers 1, booleans true. Secret references
// (write-only values, which Desired cannot build unresolved) and types that
// marshal themselves (times, quantities, raw JSON) are left unset, and a type
// is not filled again inside itself. When Desired refuses such a spec (two fields
// that exclude each other), each field set is unset in turn until it builds.
func filledBody(k Kind) (map[string]any, error) {
	obj := k.New()
	spec := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	if !spec.IsValid() {
		return nil, fmt.Errorf("%T has no Spec", obj)
	}
	fill(spec, map[reflect.Type]bool{})
	body, err := k.Desired(obj, nil)
	if err != nil {
		for _, f := range setFields(spec) {
			was := reflect.New(f.Type()).Elem()
			was.Set(f)
			f.Set(reflect.Zero(f.Type()))
			if b, e := k.Desired(obj, nil); e == nil {
				body, err = b, nil
				break
			}
			f.Set(was)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the body of a spec with every field set: %w", err)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

var (
	jsonMarshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	secretRef     = reflect.TypeOf(azurev1alpha1.SecretKeyReference{})
)

// fill sets v as filledBody says.
func fill(v reflect.Value, onPath map[reflect.Type]bool) {
	t := v.Type()
	if !v.CanSet() || t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
		t == secretRef || t.Kind() == reflect.Pointer && t.Elem() == secretRef {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if onPath[t.Elem()] {
			return
		}
		p := reflect.New(t.Elem())
		fill(p.Elem(), onPath)
		v.Set(p)
	case reflect.Struct:
		if onPath[t] {
			return
		}
		onPath[t] = true
		defer delete(onPath, t)
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				fill(v.Field(i), onPath)
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte("x"))
			return
		}
		s := reflect.MakeSlice(t, 1, 1)
		fill(s.Index(0), onPath)
		v.Set(s)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return
		}
		e := reflect.New(t.Elem()).Elem()
		fill(e, onPath)
		m := reflect.MakeMap(t)
		m.SetMapIndex(reflect.ValueOf("x").Convert(t.Key()), e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	}
}

// setFields lists the settable fields below v, depth first.
func setFields(v reflect.Value) []reflect.Value {
	var out []reflect.Value
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if f := v.Field(i); f.CanSet() && !f.IsZero() {
					out = append(out, f)
					walk(f)
				}
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(v)
	return out
}
