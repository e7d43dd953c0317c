package expressions

import (
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// MaxStringSize is the largest string the string functions build: no Secret
// or ConfigMap holds more, and the check happens before allocating. Without
// it one call could exhaust memory before the cost tracker (which charges a
// call after it returns) stops the evaluation: cel-go's ext.Strings replace
// and join produce output far larger than their input, such as
// self.spec.x.replace("a", <4,000 characters>) or a 4,000-character separator
// in join.
const MaxStringSize = MaxObjectDataSize

// stringLibrary is the subset of cel-go's ext.Strings that export expressions
// need, with the same names and semantics (so Kubernetes' cost estimator
// prices them) but with the size of every result checked before it is built.
// format and strings.quote are left out: their output size is hard to bound.
func stringLibrary() []cel.EnvOption {
	str, list, integer := cel.StringType, cel.ListType(cel.StringType), cel.IntType
	return []cel.EnvOption{
		cel.Function("lowerAscii", cel.MemberOverload("aztenant_string_lower_ascii", []*cel.Type{str}, str,
			cel.UnaryBinding(func(s ref.Val) ref.Val {
				return withString(s, func(s string) ref.Val { return types.String(mapASCII(s, 'A', 'Z', 'a'-'A')) })
			}))),
		cel.Function("upperAscii", cel.MemberOverload("aztenant_string_upper_ascii", []*cel.Type{str}, str,
			cel.UnaryBinding(func(s ref.Val) ref.Val {
				return withString(s, func(s string) ref.Val { return types.String(mapASCII(s, 'a', 'z', 'A'-'a')) })
			}))),
		cel.Function("trim", cel.MemberOverload("aztenant_string_trim", []*cel.Type{str}, str,
			cel.UnaryBinding(func(s ref.Val) ref.Val {
				return withString(s, func(s string) ref.Val { return types.String(strings.TrimSpace(s)) })
			}))),
		cel.Function("indexOf", cel.MemberOverload("aztenant_string_index_of", []*cel.Type{str, str}, integer,
			cel.BinaryBinding(func(s, sub ref.Val) ref.Val {
				return withStrings(s, sub, func(s, sub string) ref.Val {
					i := strings.Index(s, sub)
					if i < 0 {
						return types.Int(-1)
					}
					return types.Int(utf8.RuneCountInString(s[:i]))
				})
			}))),
		cel.Function("substring",
			cel.MemberOverload("aztenant_string_substring_int", []*cel.Type{str, integer}, str,
				cel.BinaryBinding(func(s, start ref.Val) ref.Val {
					return substring(s, start, nil)
				})),
			cel.MemberOverload("aztenant_string_substring_int_int", []*cel.Type{str, integer, integer}, str,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					return substring(args[0], args[1], args[2])
				}))),
		cel.Function("replace",
			cel.MemberOverload("aztenant_string_replace_string_string", []*cel.Type{str, str, str}, str,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return replace(args[0], args[1], args[2], types.Int(-1)) })),
			cel.MemberOverload("aztenant_string_replace_string_string_int", []*cel.Type{str, str, str, integer}, str,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return replace(args[0], args[1], args[2], args[3]) }))),
		cel.Function("split", cel.MemberOverload("aztenant_string_split_string", []*cel.Type{str, str}, list,
			cel.BinaryBinding(func(s, sep ref.Val) ref.Val {
				return withStrings(s, sep, func(s, sep string) ref.Val {
					return types.DefaultTypeAdapter.NativeToValue(strings.Split(s, sep))
				})
			}))),
		cel.Function("join",
			cel.MemberOverload("aztenant_list_join", []*cel.Type{list}, str,
				cel.UnaryBinding(func(l ref.Val) ref.Val { return join(l, types.String("")) })),
			cel.MemberOverload("aztenant_list_join_string", []*cel.Type{list, str}, str,
				cel.BinaryBinding(join))),
	}
}

func withString(v ref.Val, f func(string) ref.Val) ref.Val {
	s, ok := v.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	return f(string(s))
}

func withStrings(a, b ref.Val, f func(a, b string) ref.Val) ref.Val {
	as, ok := a.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(a)
	}
	bs, ok := b.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(b)
	}
	return f(string(as), string(bs))
}

func mapASCII(s string, lo, hi byte, delta int) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= rune(lo) && r <= rune(hi) })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if b[i] >= lo && b[i] <= hi {
			b[i] = byte(int(b[i]) + delta)
		}
	}
	return string(b)
}

func tooLarge(fn string, n int) ref.Val {
	return types.NewErr("%s would build a string of %d bytes, more than the limit of %d", fn, n, MaxStringSize)
}

func replace(sv, oldv, newv, nv ref.Val) ref.Val {
	s, ok1 := sv.(types.String)
	old, ok2 := oldv.(types.String)
	nw, ok3 := newv.(types.String)
	n, ok4 := nv.(types.Int)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return types.NewErr("no such overload: replace")
	}
	count := strings.Count(string(s), string(old)) // runes+1 when old is empty
	if n >= 0 && int64(count) > int64(n) {
		count = int(n)
	}
	// Compute the result size before building it.
	size := int64(len(s)) + int64(count)*(int64(len(nw))-int64(len(old)))
	if size > MaxStringSize {
		return tooLarge("replace", int(min(size, 1<<62)))
	}
	return types.String(strings.Replace(string(s), string(old), string(nw), int(n)))
}

func join(lv, sepv ref.Val) ref.Val {
	l, ok := lv.(traits.Lister)
	sep, ok2 := sepv.(types.String)
	if !ok || !ok2 {
		return types.NewErr("no such overload: join")
	}
	n := int64(l.Size().(types.Int))
	parts := make([]string, 0, n)
	size := int64(0)
	for it := l.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		s, ok := v.(types.String)
		if !ok {
			return types.NewErr("join: list element is %s, not string", v.Type().TypeName())
		}
		size += int64(len(s)) + int64(len(sep))
		if size > MaxStringSize+int64(len(sep)) {
			return tooLarge("join", int(size))
		}
		parts = append(parts, string(s))
	}
	return types.String(strings.Join(parts, string(sep)))
}

func substring(sv, startv, endv ref.Val) ref.Val {
	s, ok := sv.(types.String)
	start, ok2 := startv.(types.Int)
	if !ok || !ok2 {
		return types.NewErr("no such overload: substring")
	}
	runes := utf8.RuneCountInString(string(s))
	end := types.Int(runes)
	if endv != nil {
		if end, ok = endv.(types.Int); !ok {
			return types.NewErr("no such overload: substring")
		}
	}
	if start < 0 || int(start) > runes || end < start || int(end) > runes {
		return types.NewErr("substring: indices [%d, %d) out of range for a string of %d characters", start, end, runes)
	}
	// Byte offsets of the code point indices.
	bs, be, i := len(s), len(s), 0
	for off := range string(s) {
		if i == int(start) {
			bs = off
		}
		if i == int(end) {
			be = off
			break
		}
		i++
	}
	return types.String(string(s)[bs:be])
}
