package expressions

import "strings"

// CompileError is an expression that failed to parse, type-check, or pass the
// limits. Its Error text is meant for the object's conditions, for example
//
//	secretExpressions[1] (key "conn"): ERROR: <input>:1:12: undeclared reference to 'secrt'
type CompileError struct {
	// Field names the expression in the spec, such as
	// `secretExpressions[1] (key "conn")`; empty when compiled on its own.
	Field string
	// Expression is the source, truncated to a reasonable length.
	Expression string
	// Message is the one-line description of every problem found, each as
	// `ERROR: <input>:line:column: text`, or a plain text when the problem has
	// no position (such as the length limit).
	Message string
	// Line and Column (both 1-based) locate the first problem; 0 when unknown.
	Line, Column int
}

func (e *CompileError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// EvalError is an expression that compiled but failed when evaluated: a
// missing field or key, a result of the wrong type, the cost limit or the
// timeout.
type EvalError struct {
	// Field names the expression in the spec, as in CompileError.
	Field string
	// Expression is the source, truncated to a reasonable length.
	Expression string
	// Message describes the failure.
	Message string
	// Reason classifies the failure for callers that react differently (for
	// example retrying after a timeout).
	Reason EvalReason
	cause  error
}

// EvalReason classifies an EvalError.
type EvalReason string

const (
	// ReasonRuntime is an error raised by the expression itself, such as
	// `no such key: key1` or a division by zero.
	ReasonRuntime EvalReason = "Runtime"
	// ReasonResultType is a result of the wrong type for its destination.
	ReasonResultType EvalReason = "ResultType"
	// ReasonCostLimit is an evaluation stopped by the runtime cost limit.
	ReasonCostLimit EvalReason = "CostLimit"
	// ReasonTimeout is an evaluation stopped by its context (deadline or cancel).
	ReasonTimeout EvalReason = "Timeout"
	// ReasonConflict is two expressions writing the same key of the same object.
	ReasonConflict EvalReason = "Conflict"
	// ReasonInvalidKey is a map result whose key is not a valid Secret or
	// ConfigMap key, or results larger than a Secret or ConfigMap may hold.
	ReasonInvalidKey EvalReason = "InvalidKey"
)

func (e *EvalError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Unwrap returns the underlying CEL or context error, if any.
func (e *EvalError) Unwrap() error { return e.cause }

// Errors is several errors, reported on one line separated by "; " so that
// they fit in a condition message. errors.As finds the individual errors.
type Errors []error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns the individual errors.
func (es Errors) Unwrap() []error { return es }

// orNil returns nil for no errors, the error itself for one, and es otherwise.
func (es Errors) orNil() error {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return es
}

const maxQuotedExpression = 256

func truncate(s string) string {
	if len(s) <= maxQuotedExpression {
		return s
	}
	// Cut on a rune boundary.
	cut := maxQuotedExpression
	for cut > 0 && !startsRune(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func startsRune(b byte) bool { return b&0xC0 != 0x80 }
