package expressions

import (
	"context"
	"fmt"
	"maps"
	"slices"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// MaxObjectDataSize is the most data a Secret or ConfigMap may hold (1 MiB);
// expressions writing more fail here with a clear message rather than at the
// API server.
const MaxObjectDataSize = 1 << 20

// maxKeyLength is the longest Secret or ConfigMap key.
const maxKeyLength = 253

type destList struct {
	field  string // secretExpressions or configMapExpressions
	kind   string // Secret or ConfigMap
	secret bool
	items  []azurev1alpha1.DestinationExpression
}

func lists(ops *azurev1alpha1.OperatorExpressions) [2]destList {
	return [2]destList{
		{field: "secretExpressions", kind: "Secret", secret: true, items: ops.SecretExpressions},
		{field: "configMapExpressions", kind: "ConfigMap", secret: false, items: ops.ConfigMapExpressions},
	}
}

func (l destList) fieldName(i int) string {
	d := l.items[i]
	if d.Key != "" {
		return fmt.Sprintf("%s[%d] (key %q)", l.field, i, d.Key)
	}
	return fmt.Sprintf("%s[%d] (%s %q)", l.field, i, l.kind, d.Name)
}

// ValidateAll compiles every expression of ops (through the cache) and checks
// each result type against its destination and that no two expressions name
// the same key of the same object. The error lists every problem, each
// prefixed with its field (`secretExpressions[1] (key "conn"): ...`); the
// individual errors are *CompileError.
func ValidateAll(e *Evaluator, ops *azurev1alpha1.OperatorExpressions) error {
	_, err := compileAll(e, ops)
	return err
}

// compileAll returns the programs in the order of lists(ops).
func compileAll(e *Evaluator, ops *azurev1alpha1.OperatorExpressions) ([2][]*Program, error) {
	var progs [2][]*Program
	if ops == nil {
		return progs, nil
	}
	var errs Errors
	for li, l := range lists(ops) {
		progs[li] = make([]*Program, len(l.items))
		seen := map[[2]string]int{}
		for i, d := range l.items {
			field := l.fieldName(i)
			if d.Name == "" {
				errs = append(errs, &CompileError{Field: field, Expression: truncate(d.Value), Message: "name is required"})
				continue
			}
			if d.Key != "" {
				if err := checkKey(d.Key); err != "" {
					errs = append(errs, &CompileError{Field: field, Expression: truncate(d.Value), Message: err})
					continue
				}
				dk := [2]string{d.Name, d.Key}
				if j, dup := seen[dk]; dup {
					errs = append(errs, &CompileError{Field: field, Expression: truncate(d.Value),
						Message: fmt.Sprintf("%s %q key %q is already written by %s; each key must have one writer", l.kind, d.Name, d.Key, l.fieldName(j))})
					continue
				}
				seen[dk] = i
			}
			p, err := e.Compile(d.Value, l.secret)
			if err != nil {
				ce := *err.(*CompileError) // cached: copy before adding the field
				ce.Field = field
				errs = append(errs, &ce)
				continue
			}
			switch {
			case d.Key != "" && p.out == outMap:
				errs = append(errs, &CompileError{Field: field, Expression: truncate(d.Value),
					Message: fmt.Sprintf("key is set, so the expression must return a string, but it returns %s (remove key to write each map entry as a key)", p.outType)})
				continue
			case d.Key == "" && p.out == outString:
				errs = append(errs, &CompileError{Field: field, Expression: truncate(d.Value),
					Message: "key is empty, so the expression must return a map(string, string) whose entries become keys, but it returns string (set key)"})
				continue
			}
			progs[li][i] = p
		}
	}
	return progs, errs.orNil()
}

// Apply evaluates every expression of ops and returns, for Secrets and for
// ConfigMaps, destination name -> key -> value. `self` is the resource as
// unstructured JSON and `secret` the kind's secret outputs, visible to secret
// expressions only. Map results are merged into their destination; two
// expressions writing the same key of the same object are refused. On any
// error nothing is returned, so nothing is written partially; the error lists
// every problem, as *CompileError and *EvalError.
func Apply(ctx context.Context, e *Evaluator, ops *azurev1alpha1.OperatorExpressions, self map[string]any, secret map[string]string) (secrets, configMaps map[string]map[string]string, err error) {
	progs, err := compileAll(e, ops)
	if err != nil {
		return nil, nil, err
	}
	if ops == nil {
		return nil, nil, nil
	}
	var errs Errors
	var out [2]map[string]map[string]string
	for li, l := range lists(ops) {
		if len(l.items) == 0 {
			continue
		}
		out[li] = map[string]map[string]string{}
		writer := map[[2]string]int{}
		size := map[string]int{}
		for i, d := range l.items {
			field := l.fieldName(i)
			res, err := e.Eval(ctx, progs[li][i], self, secret)
			if err != nil {
				ee := *err.(*EvalError)
				ee.Field = field
				errs = append(errs, &ee)
				continue
			}
			fail := func(reason EvalReason, msg string) {
				errs = append(errs, &EvalError{Field: field, Expression: truncate(d.Value), Message: msg, Reason: reason})
			}
			var kv map[string]string
			switch {
			case d.Key != "" && res.IsMap():
				fail(ReasonResultType, "key is set, so the expression must return a string, but it returned a map (remove key to write each map entry as a key)")
				continue
			case d.Key == "" && !res.IsMap():
				fail(ReasonResultType, "key is empty, so the expression must return a map(string, string) whose entries become keys, but it returned a string (set key)")
				continue
			case d.Key != "":
				kv = map[string]string{d.Key: res.String}
			default:
				kv = res.Map
			}
			dest := out[li][d.Name]
			if dest == nil {
				dest = map[string]string{}
				out[li][d.Name] = dest
			}
			for _, k := range slices.Sorted(maps.Keys(kv)) {
				v := kv[k]
				if msg := checkKey(k); msg != "" {
					fail(ReasonInvalidKey, "returned "+msg)
					continue
				}
				wk := [2]string{d.Name, k}
				if j, dup := writer[wk]; dup {
					fail(ReasonConflict, fmt.Sprintf("%s %q key %q is already written by %s; each key must have one writer", l.kind, d.Name, k, l.fieldName(j)))
					continue
				}
				writer[wk] = i
				dest[k] = v
				size[d.Name] += len(k) + len(v)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(size)) {
			if size[name] > MaxObjectDataSize {
				errs = append(errs, &EvalError{Field: l.field, Reason: ReasonInvalidKey,
					Message: fmt.Sprintf("%s %q would hold %d bytes, more than the %d a %s may hold", l.kind, name, size[name], MaxObjectDataSize, l.kind)})
			}
		}
	}
	if err := errs.orNil(); err != nil {
		return nil, nil, err
	}
	return out[0], out[1], nil
}

// checkKey returns why k is not a valid Secret or ConfigMap key, or "".
func checkKey(k string) string {
	if k == "" || len(k) > maxKeyLength {
		return fmt.Sprintf("key %q: must be 1 to %d characters", k, maxKeyLength)
	}
	if k == "." || k == ".." {
		return fmt.Sprintf("key %q: must not be '.' or '..'", k)
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '-' || c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Sprintf("key %q: must consist of alphanumeric characters, '-', '_' or '.'", truncateKey(k))
		}
	}
	return ""
}

func truncateKey(k string) string {
	if len(k) <= 64 {
		return k
	}
	cut := 64
	for cut > 0 && !startsRune(k[cut]) {
		cut--
	}
	return k[:cut] + "..."
}
