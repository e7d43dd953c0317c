package expressions

import (
	"container/list"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"k8s.io/apiserver/pkg/cel/library"
)

// Default limits. They are deliberately generous for what export expressions
// do (concatenate a few fields, build a small map) and small enough that a
// hostile expression costs at most a few milliseconds of a reconcile.
const (
	// DefaultCacheSize is the number of compiled programs kept.
	DefaultCacheSize = 1000
	// DefaultMaxExpressionLength matches the CRD's maxLength for value.
	DefaultMaxExpressionLength = 4096
	// DefaultCostLimit is the runtime cost limit of one evaluation, the same
	// as Kubernetes' per-call limit for validation rules.
	DefaultCostLimit = 1_000_000
	// DefaultMaxEstimatedCost is the largest worst-case cost estimated at
	// compile time. The estimate cannot know the shape of `self`, only that
	// it is at most DefaultMaxSelfSize bytes, so it assumes every list has
	// ~786,000 elements and every string ~1.5 million characters at once:
	// a single comprehension that builds strings (tags.map(k, k + "=" +
	// tags[k]).join(",")) estimates at about 1e12, a comprehension nested in
	// another over the resource at 4e17 or more. The limit sits between: it
	// refuses work that grows faster than linearly with the resource and
	// accepts the rest, which the runtime limit bounds on the actual input.
	// (Kubernetes' 10x-the-runtime-limit would refuse any comprehension over
	// a list of the resource, and users cannot add maxItems to `self`.)
	DefaultMaxEstimatedCost = 100_000_000_000_000
	// DefaultMaxSelfSize bounds the JSON size of `self` for the estimate:
	// etcd stores no object larger than 1.5 MiB.
	DefaultMaxSelfSize = 3 << 19
	// DefaultMaxSecretSize bounds the size of `secret` for the estimate: the
	// secret outputs of a kind are a handful of keys and connection strings.
	DefaultMaxSecretSize = 64 << 10
	// DefaultTimeout bounds an evaluation whose context has no deadline.
	DefaultTimeout = 250 * time.Millisecond
)

// Options configure an Evaluator; zero fields take the defaults above.
type Options struct {
	CacheSize           int
	MaxExpressionLength int
	CostLimit           uint64
	MaxEstimatedCost    uint64
	MaxSelfSize         uint64
	MaxSecretSize       uint64
	Timeout             time.Duration
}

func (o Options) withDefaults() Options {
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.MaxExpressionLength <= 0 {
		o.MaxExpressionLength = DefaultMaxExpressionLength
	}
	if o.CostLimit == 0 {
		o.CostLimit = DefaultCostLimit
	}
	if o.MaxEstimatedCost == 0 {
		o.MaxEstimatedCost = DefaultMaxEstimatedCost
	}
	if o.MaxSelfSize == 0 {
		o.MaxSelfSize = DefaultMaxSelfSize
	}
	if o.MaxSecretSize == 0 {
		o.MaxSecretSize = DefaultMaxSecretSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// Evaluator compiles and evaluates expressions. It is safe for concurrent use;
// one per process is enough.
type Evaluator struct {
	opts       Options
	configEnv  *cel.Env // declares self
	secretEnv  *cel.Env // declares self and secret
	estimator  *library.CostEstimator
	progOpts   []cel.ProgramOption
	mu         sync.Mutex
	lru        *list.List // of *entry, most recently used first
	entries    map[cacheKey]*entry
	compiles   atomic.Uint64
	hits       atomic.Uint64
	evictions  atomic.Uint64
	interrupts uint
}

type cacheKey struct {
	expr   string
	secret bool
}

type entry struct {
	key  cacheKey
	elem *list.Element
	once sync.Once
	p    *Program
	err  error
}

// Stats are counters for metrics and tests.
type Stats struct {
	// Compiles counts expressions actually compiled (cache misses).
	Compiles uint64
	// Hits counts Compile calls served from the cache.
	Hits uint64
	// Evictions counts programs dropped from the full cache.
	Evictions uint64
	// Entries is the number of programs cached now.
	Entries int
}

// New returns an Evaluator with the given limits.
func New(opts Options) (*Evaluator, error) {
	opts = opts.withDefaults()
	envOpts := []cel.EnvOption{
		cel.Variable("self", cel.MapType(cel.StringType, cel.DynType)),
		// Libraries: the standard library (with matches), size-checked
		// string functions (join, split, replace, lowerAscii, upperAscii,
		// trim, substring, indexOf), base64, optionals
		// (self.?status.?x.orValue("")), two-variable comprehensions
		// (transformMap), and Kubernetes' lists, regex and url libraries,
		// all with cost estimates. None performs I/O.
		ext.Encoders(),
		ext.TwoVarComprehensions(),
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		cel.DefaultUTCTimeZone(true),
		library.Lists(),
		library.Regex(),
		library.URLs(),
		cel.ASTValidators(cel.ValidateRegexLiterals(), cel.ValidateDurationLiterals(), cel.ValidateTimestampLiterals()),
		cel.ParserExpressionSizeLimit(opts.MaxExpressionLength),
		cel.ParserRecursionLimit(100),
		cel.EagerlyValidateDeclarations(true),
	}
	base, err := cel.NewEnv(append(envOpts, stringLibrary()...)...)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	withSecret, err := base.Extend(cel.Variable("secret", cel.MapType(cel.StringType, cel.StringType)))
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	e := &Evaluator{
		opts:       opts,
		configEnv:  base,
		secretEnv:  withSecret,
		lru:        list.New(),
		entries:    map[cacheKey]*entry{},
		interrupts: 100,
	}
	e.estimator = &library.CostEstimator{SizeEstimator: &sizeEstimator{
		self:   opts.MaxSelfSize,
		secret: opts.MaxSecretSize,
	}}
	e.progOpts = []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostTracking(actualCost{k8s: &library.CostEstimator{}}),
		cel.CostLimit(opts.CostLimit),
		cel.InterruptCheckFrequency(e.interrupts),
	}
	return e, nil
}

// MustNew is New for package-level variables; it panics only if the CEL
// environment itself is broken, which tests catch.
func MustNew(opts Options) *Evaluator {
	e, err := New(opts)
	if err != nil {
		panic(err)
	}
	return e
}

// Stats returns the cache counters.
func (e *Evaluator) Stats() Stats {
	e.mu.Lock()
	n := len(e.entries)
	e.mu.Unlock()
	return Stats{Compiles: e.compiles.Load(), Hits: e.hits.Load(), Evictions: e.evictions.Load(), Entries: n}
}

// Program is a compiled, checked expression, safe for concurrent evaluation.
type Program struct {
	expr    string
	secret  bool
	prg     cel.Program
	out     outKind
	outType string
	loops   bool // has a comprehension, the only construct that iterates
	minCost uint64
	maxCost uint64
}

type outKind int

const (
	outDyn    outKind = iota // known only when evaluated
	outString                // string
	outMap                   // map(string, string), possibly with dyn parts
)

// Expression returns the source.
func (p *Program) Expression() string { return p.expr }

// Secret reports whether the program was compiled for a Secret (and may read
// `secret`).
func (p *Program) Secret() bool { return p.secret }

// OutputType is the checked CEL type of the result, such as "string",
// "map(string, string)" or "dyn" (known only when evaluated).
func (p *Program) OutputType() string { return p.outType }

// EstimatedCost is the compile-time estimate of the evaluation cost, assuming
// inputs of the configured maximum sizes.
func (p *Program) EstimatedCost() (minCost, maxCost uint64) { return p.minCost, p.maxCost }

// Compile returns the program for expr, compiling it once per (expr, secret)
// while it stays in the cache. Compile errors are cached too. The error is a
// *CompileError.
func (e *Evaluator) Compile(expr string, secret bool) (*Program, error) {
	if len(expr) > e.opts.MaxExpressionLength {
		if n := utf8.RuneCountInString(expr); n > e.opts.MaxExpressionLength {
			// Not cached: a flood of distinct long strings must not evict
			// the programs that matter.
			return nil, &CompileError{
				Expression: truncate(expr),
				Message:    fmt.Sprintf("expression is %d characters long, more than the limit of %d", n, e.opts.MaxExpressionLength),
			}
		}
	}
	k := cacheKey{expr: expr, secret: secret}
	e.mu.Lock()
	en, ok := e.entries[k]
	if ok {
		e.lru.MoveToFront(en.elem)
		e.hits.Add(1)
	} else {
		en = &entry{key: k}
		en.elem = e.lru.PushFront(en)
		e.entries[k] = en
		for e.lru.Len() > e.opts.CacheSize {
			old := e.lru.Remove(e.lru.Back()).(*entry)
			delete(e.entries, old.key)
			e.evictions.Add(1)
		}
	}
	e.mu.Unlock()
	// Outside the lock: concurrent callers of the same expression wait for
	// the one compile; other expressions compile in parallel.
	en.once.Do(func() {
		e.compiles.Add(1)
		en.p, en.err = e.compile(expr, secret)
	})
	return en.p, en.err
}

func (e *Evaluator) compile(expr string, secret bool) (p *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &CompileError{Expression: truncate(expr), Message: fmt.Sprintf("internal error compiling the expression: %v", r)}
		}
	}()
	env := e.configEnv
	if secret {
		env = e.secretEnv
	}
	if strings.TrimSpace(expr) == "" {
		return nil, &CompileError{Expression: expr, Message: "expression is empty"}
	}
	checked, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, issuesError(expr, iss, secret)
	}
	p = &Program{expr: expr, secret: secret}
	t := checked.OutputType()
	p.outType = typeString(t)
	switch {
	case t.IsExactType(types.StringType):
		p.out = outString
	case t.Kind() == types.DynKind:
		p.out = outDyn
	case t.Kind() == types.MapKind && stringish(t.Parameters()[0]) && stringish(t.Parameters()[1]):
		p.out = outMap
	default:
		return nil, &CompileError{
			Expression: truncate(expr),
			Message:    fmt.Sprintf("expression must return a string or a map(string, string), but it returns %s%s", p.outType, conversionHint(t)),
		}
	}
	est, err := env.EstimateCost(checked, e.estimator)
	if err != nil {
		return nil, &CompileError{Expression: truncate(expr), Message: "estimating the cost of the expression: " + err.Error()}
	}
	p.minCost, p.maxCost = est.Min, est.Max
	if est.Min > e.opts.CostLimit {
		return nil, &CompileError{
			Expression: truncate(expr),
			Message:    fmt.Sprintf("expression costs at least %d, more than the runtime limit of %d: it does too much work", est.Min, e.opts.CostLimit),
		}
	}
	if est.Max > e.opts.MaxEstimatedCost {
		return nil, &CompileError{
			Expression: truncate(expr),
			Message: fmt.Sprintf("expression's estimated worst-case cost %s exceeds the limit of %d: it could do too much work on a large resource; avoid nested comprehensions (map, filter, all, exists) and building strings inside them",
				costString(est.Max), e.opts.MaxEstimatedCost),
		}
	}
	p.loops = len(celast.MatchDescendants(celast.NavigateAST(checked.NativeRep()), celast.KindMatcher(celast.ComprehensionKind))) > 0
	p.prg, err = env.Program(checked, e.progOpts...)
	if err != nil {
		return nil, &CompileError{Expression: truncate(expr), Message: "building the program: " + err.Error()}
	}
	return p, nil
}

func costString(c uint64) string {
	if c == ^uint64(0) {
		return "(unbounded)"
	}
	return fmt.Sprint(c)
}

func stringish(t *types.Type) bool {
	return t.IsExactType(types.StringType) || t.Kind() == types.DynKind
}

func typeString(t *types.Type) string {
	if t == nil {
		return "unknown"
	}
	return t.String()
}

func conversionHint(t *types.Type) string {
	switch t.Kind() {
	case types.IntKind, types.UintKind, types.DoubleKind, types.BoolKind, types.BytesKind, types.TimestampKind, types.DurationKind:
		return " (convert it with string(...))"
	case types.MapKind:
		return " (convert the values with string(...), for example m.transformMap(k, v, string(v)))"
	case types.ListKind:
		return ` (join it with .join(","), or build a map)`
	}
	return ""
}

// issuesError turns CEL's issues into one line per problem without the
// source snippet, positions kept, and explains `secret` in configMaps.
func issuesError(expr string, iss *cel.Issues, secret bool) *CompileError {
	ce := &CompileError{Expression: truncate(expr)}
	var msgs []string
	for i, is := range iss.Errors() {
		msg := strings.TrimSuffix(is.Message, " (in container '')")
		if !secret && msg == "undeclared reference to 'secret'" {
			msg = "configMap expressions cannot read `secret`: secret outputs may only be written to Secrets (use secretExpressions)"
		}
		line, col := is.Location.Line(), is.Location.Column()+1
		if line <= 0 {
			msgs = append(msgs, "ERROR: "+msg)
		} else {
			msgs = append(msgs, fmt.Sprintf("ERROR: <input>:%d:%d: %s", line, col, msg))
		}
		if i == 0 && line > 0 {
			ce.Line, ce.Column = line, col
		}
	}
	ce.Message = strings.Join(msgs, "; ")
	return ce
}

// sizeEstimator bounds the sizes of values read from the inputs, for the
// compile-time estimate: nothing in `self` is larger than the largest stored
// object, nothing in `secret` larger than its bound; a list or map element
// takes at least two bytes of JSON.
type sizeEstimator struct{ self, secret uint64 }

func (s *sizeEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	limit := s.self + s.secret
	if p := n.Path(); len(p) > 0 {
		switch p[0] {
		case "self":
			limit = s.self
		case "secret":
			limit = s.secret
		}
	}
	if t := n.Type(); t != nil && (t.Kind() == types.ListKind || t.Kind() == types.MapKind) {
		limit /= 2
	}
	return &checker.SizeEstimate{Min: 0, Max: limit}
}

func (s *sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
