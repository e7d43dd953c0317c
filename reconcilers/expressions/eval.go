package expressions

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// Result is what an expression returned: a string, or (Map non-nil) a
// map(string, string) whose entries become keys.
type Result struct {
	String string
	Map    map[string]string
}

// IsMap reports whether the expression returned a map.
func (r Result) IsMap() bool { return r.Map != nil }

// activation exposes exactly the two inputs; nothing else can be resolved.
type activation struct {
	self   map[string]any
	secret map[string]string
	// withSecret is false for configMap programs: `secret` is then neither
	// declared (so it does not compile) nor resolvable.
	withSecret bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, true
	case "secret":
		if a.withSecret {
			return a.secret, true
		}
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

var empty = map[string]any{}

// Eval evaluates p with `self` (the resource as unstructured JSON) and, for a
// secret program, `secret` (ignored for configMap programs). It stops at the
// cost limit and when ctx is done; a ctx without a deadline gets the
// Evaluator's timeout. Errors are *EvalError.
func (e *Evaluator) Eval(ctx context.Context, p *Program, self map[string]any, secret map[string]string) (Result, error) {
	if p == nil || p.prg == nil {
		return Result{}, &EvalError{Message: "no program to evaluate", Reason: ReasonRuntime}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, p.evalError(ReasonTimeout, "evaluation not started: "+err.Error(), err)
	}
	if self == nil {
		self = empty
	}
	if secret == nil {
		secret = map[string]string{}
	}
	act := &activation{self: self, secret: secret, withSecret: p.secret}
	var (
		out ref.Val
		err error
	)
	if p.loops {
		// Only comprehensions iterate, and only they check for interrupts,
		// so only they pay for a context.
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, e.opts.Timeout)
			defer cancel()
		}
		out, _, err = p.prg.ContextEval(ctx, act)
	} else {
		out, _, err = p.prg.Eval(act)
	}
	if err != nil {
		return Result{}, e.classify(p, ctx, err)
	}
	return p.result(out)
}

func (e *Evaluator) classify(p *Program, ctx context.Context, err error) *EvalError {
	var cancelled interpreter.EvalCancelledError
	switch {
	case errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded:
		return p.evalError(ReasonCostLimit, fmt.Sprintf("evaluation exceeded the cost limit of %d: the expression does too much work for this resource", e.opts.CostLimit), err)
	case errors.As(err, &cancelled), errors.Is(err, interpreter.InterruptError{}),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		msg := "evaluation interrupted"
		if cerr := ctx.Err(); errors.Is(cerr, context.DeadlineExceeded) {
			msg = "evaluation timed out"
		} else if cerr != nil {
			msg = "evaluation cancelled"
		}
		return p.evalError(ReasonTimeout, msg, err)
	}
	return p.evalError(ReasonRuntime, err.Error(), err)
}

func (p *Program) evalError(reason EvalReason, msg string, cause error) *EvalError {
	return &EvalError{Expression: truncate(p.expr), Message: msg, Reason: reason, cause: cause}
}

func (p *Program) result(out ref.Val) (Result, error) {
	switch v := out.(type) {
	case types.String:
		return Result{String: string(v)}, nil
	case traits.Mapper:
		m := make(map[string]string, int(v.Size().(types.Int)))
		for it := v.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return Result{}, p.evalError(ReasonResultType, fmt.Sprintf("map keys must be strings, got %s key %v", k.Type().TypeName(), k.Value()), nil)
			}
			val := v.Get(k)
			vs, ok := val.(types.String)
			if !ok {
				return Result{}, p.evalError(ReasonResultType, fmt.Sprintf("map value for key %q must be a string, got %s (convert it with string(...))", string(ks), val.Type().TypeName()), nil)
			}
			m[string(ks)] = string(vs)
		}
		return Result{Map: m}, nil
	}
	return Result{}, p.evalError(ReasonResultType, fmt.Sprintf("expression must return a string or a map(string, string), got %s", out.Type().TypeName()), nil)
}
