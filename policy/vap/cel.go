package vap

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
)

// celLiteral writes a JSON value (as decoded into unstructured objects) as
// a CEL literal.
func celLiteral(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		// Go's escapes (\n, \", \xHH, \uHHHH, \UHHHHHHHH) are all CEL escapes.
		return strconv.Quote(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int:
		return strconv.Itoa(x), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", fmt.Errorf("%v has no CEL literal", x)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0" // a double, as the constraint's value is
		}
		return s, nil
	case []any:
		// The API server's CEL wants homogeneous literals: elements of
		// differing (or composite) types are each made dyn.
		wrap := false
		for _, e := range x {
			switch e.(type) {
			case []any, map[string]any:
				wrap = true
			}
			if fmt.Sprintf("%T", e) != fmt.Sprintf("%T", x[0]) {
				wrap = true
			}
		}
		items := make([]string, len(x))
		for i, e := range x {
			lit, err := celLiteral(e)
			if err != nil {
				return "", err
			}
			if wrap {
				lit = "dyn(" + lit + ")"
			}
			items[i] = lit
		}
		return "[" + strings.Join(items, ", ") + "]", nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		items := make([]string, len(keys))
		for i, k := range keys {
			lit, err := celLiteral(x[k])
			if err != nil {
				return "", err
			}
			// Values differ in type (a list, a bool); dyn keeps the map homogeneous.
			items[i] = strconv.Quote(k) + ": dyn(" + lit + ")"
		}
		return "{" + strings.Join(items, ", ") + "}", nil
	}
	return "", fmt.Errorf("value of type %T has no CEL literal", v)
}

// compile checks every expression of a policy as the API server does when
// it is created: variables in order (each may use the earlier ones), then
// match conditions, validations and messages, with no paramKind. An error
// names the expression and says what the compiler found.
func compile(vars []admissionregistrationv1.Variable, conditions []admissionregistrationv1.MatchCondition, vals []admissionregistrationv1.Validation) error {
	c, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return fmt.Errorf("CEL environment: %w", err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}
	for _, v := range vars {
		r := c.CompileAndStoreVariable(&validating.Variable{Name: v.Name, Expression: v.Expression}, opts, environment.NewExpressions)
		if r.Error != nil {
			return fmt.Errorf("variable %s: %s", v.Name, r.Error.Detail)
		}
	}
	check := func(where string, a plugincel.ExpressionAccessor) error {
		if r := c.CompileCELExpression(a, opts, environment.NewExpressions); r.Error != nil {
			return fmt.Errorf("%s: %s", where, r.Error.Detail)
		}
		return nil
	}
	for _, mc := range conditions {
		if err := check("match condition "+mc.Name, &matchconditions.MatchCondition{Name: mc.Name, Expression: mc.Expression}); err != nil {
			return err
		}
	}
	for i, v := range vals {
		if err := check(fmt.Sprintf("validation %d", i), &validating.ValidationCondition{Expression: v.Expression}); err != nil {
			return err
		}
		if v.MessageExpression == "" {
			continue
		}
		if err := check(fmt.Sprintf("validation %d messageExpression", i), &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}); err != nil {
			return err
		}
	}
	return nil
}
