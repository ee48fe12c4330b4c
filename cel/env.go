package cel

import (
	"fmt"
	"slices"
	"sync"

	celgo "cel.dev/cel-go/cel"
	"cel.dev/cel-go/checker"
	"cel.dev/cel-go/common/ast"
	celenv "cel.dev/cel-go/common/env"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"

	"github.com/troupe-dev/troupe/internal/lru"
)

// Root variable names a flow expression can read.
const (
	RootState   = "state"
	RootOutputs = "outputs"
	RootItem    = "item"
)

// interruptEvery is how many comprehension steps run between two looks at a
// cancellable context.
const interruptEvery = 64

// CacheSize is how many compiled expressions, and how many compiled
// templates, an Env keeps (the least recently used go first).
const CacheSize = 2048

// Env is the CEL environment of flow definitions. It compiles expressions and
// templates once per source text and keeps the most recently used ones, so
// definitions that share an Env share their compiled expressions, and a
// process that sees ever new definitions keeps a bounded amount of memory.
// It is safe for concurrent use.
type Env struct {
	env       *celgo.Env
	progOpts  []celgo.ProgramOption
	limits    Limits
	sigs      func() map[string][]signature // the overloads, read on first use
	programs  *lru.Cache[string, *Program]  // normalised source -> program
	templates *lru.Cache[string, *Template] // template text -> template
	// checks holds the problems of recently checked expressions: a
	// service that loads the same definitions again and again parses each
	// expression once (BenchmarkLoadCompileRun/parse spends half its time
	// in the CEL parser without it).
	checks *lru.Cache[string, []Problem]
}

// NewEnv returns an environment with cel-go's standard library, the ext
// string functions and two-variable comprehensions, and the variables state,
// outputs and item declared as dyn. Evaluations are bounded by the default
// Limits unless WithLimits says otherwise.
//
// size(null) is 0, as in celpy, the CEL implementation CrewAI uses.
func NewEnv(opts ...EnvOption) (*Env, error) {
	var cfg envConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	limits := cfg.limits.withDefaults()
	envOpts := []celgo.EnvOption{
		celgo.StdLib(celgo.StdLibSubset(
			celenv.NewLibrarySubset().AddExcludedFunctions(&celenv.Function{Name: "size"}),
		)),
		sizeFunction(),
		ext.Strings(),
		ext.TwoVarComprehensions(),
		celgo.Variable(RootState, celgo.DynType),
		celgo.Variable(RootOutputs, celgo.DynType),
		celgo.Variable(RootItem, celgo.DynType),
	}
	for _, v := range cfg.vars {
		envOpts = append(envOpts, celgo.Variable(v, celgo.DynType))
	}
	if limits.checksSize() {
		guards, err := sizeGuards(limits.Size)
		if err != nil {
			return nil, err
		}
		envOpts = append(envOpts, guards...)
	}
	env, err := celgo.NewCustomEnv(envOpts...)
	if err != nil {
		return nil, fmt.Errorf("cel: building the CEL environment: %w", err)
	}
	return &Env{
		env:       env,
		limits:    limits,
		sigs:      sync.OnceValue(func() map[string][]signature { return readSignatures(env) }),
		programs:  lru.New[string, *Program](CacheSize),
		templates: lru.New[string, *Template](CacheSize),
		checks:    lru.New[string, []Problem](CacheSize),
		progOpts: []celgo.ProgramOption{
			celgo.EvalOptions(celgo.OptOptimize),
			celgo.InterruptCheckFrequency(interruptEvery),
		},
	}, nil
}

// sizeFunction declares size() like the standard library does and adds
// size(null) == 0, a celpy behaviour flows may rely on.
func sizeFunction() celgo.EnvOption {
	listOfA := celgo.ListType(celgo.TypeParamType("A"))
	mapOfAB := celgo.MapType(celgo.TypeParamType("A"), celgo.TypeParamType("B"))
	return celgo.Function("size",
		celgo.Overload("size_bytes", []*celgo.Type{celgo.BytesType}, celgo.IntType),
		celgo.MemberOverload("bytes_size", []*celgo.Type{celgo.BytesType}, celgo.IntType),
		celgo.Overload("size_list", []*celgo.Type{listOfA}, celgo.IntType),
		celgo.MemberOverload("list_size", []*celgo.Type{listOfA}, celgo.IntType),
		celgo.Overload("size_map", []*celgo.Type{mapOfAB}, celgo.IntType),
		celgo.MemberOverload("map_size", []*celgo.Type{mapOfAB}, celgo.IntType),
		celgo.Overload("size_string", []*celgo.Type{celgo.StringType}, celgo.IntType),
		celgo.MemberOverload("string_size", []*celgo.Type{celgo.StringType}, celgo.IntType),
		celgo.Overload("size_null", []*celgo.Type{celgo.NullType}, celgo.IntType),
		celgo.SingletonUnaryBinding(func(v ref.Val) ref.Val {
			switch x := v.(type) {
			case types.Null:
				return types.IntZero
			case traits.Sizer:
				return x.Size()
			}
			return types.MaybeNoSuchOverloadErr(v)
		}),
	)
}

// Compile compiles a full-CEL field such as expression.expr, each.in or a
// step's if. As CrewAI does, it strips the text, removes a `${...}` wrapper
// around the whole text and strips again. The result is cached: the same text
// compiles once. Errors are *CompileError.
func (e *Env) Compile(expr string) (*Program, error) {
	src, off := unwrapExpr(expr)
	if src == "" {
		_, lead := pyStrip(expr)
		return nil, &CompileError{Code: CodeEmpty, Message: "empty CEL expression", Offset: lead}
	}
	p, err := e.compileSource(src)
	if err != nil {
		err.Offset += off
		return nil, err
	}
	return p, nil
}

// compileSource compiles src as is (already stripped), through the cache.
func (e *Env) compileSource(src string) (*Program, *CompileError) {
	if p, ok := e.programs.Get(src); ok {
		return p, nil
	}
	parsed, iss := e.env.Parse(src)
	if iss != nil && iss.Err() != nil {
		return nil, invalidError(src, iss)
	}
	// A type-checked AST evaluates faster (no namespace guessing for state.x).
	// Checking can reject what celpy runs (1 + 1.0 fails only at run time
	// there), so an expression that does not check runs unchecked.
	a := parsed
	if checked, ciss := e.env.Check(parsed); ciss == nil || ciss.Err() == nil {
		a = checked
	}
	prg, err := e.env.Program(a, e.programOptions(a, a != parsed)...)
	if err != nil && a != parsed {
		prg, err = e.env.Program(parsed, e.programOptions(parsed, false)...)
	}
	if err != nil {
		return nil, &CompileError{Code: CodeInvalid, Expr: src, Message: invalidText("", src, err.Error())}
	}
	p := &Program{expr: src, prg: prg, loops: hasComprehension(parsed.NativeRep().Expr()), limits: e.limits}
	return e.programs.Add(src, p), nil
}

// programOptions returns the options of the program for ast: the common
// ones, a size check on the calls that can produce large values, and cost
// tracking, which costs an allocation per evaluation, where it is needed.
func (e *Env) programOptions(a *celgo.Ast, checked bool) []celgo.ProgramOption {
	opts := slices.Clip(e.progOpts)
	if e.limits.checksSize() {
		sized := func(int64) bool { return true }
		if checked {
			sized = func(id int64) bool { return mayBeLarge(a.NativeRep().GetType(id)) }
		}
		opts = append(opts, sizeDecorator(e.limits.Size, sized))
	}
	if e.limits.tracksCost() && e.needsCostTracking(a, checked) {
		opts = append(opts, celgo.CostLimit(e.limits.Cost))
	}
	return opts
}

// loopFreeCalls is how many calls an expression without comprehensions may
// make and still run without cost tracking.
const loopFreeCalls = 32

// needsCostTracking reports whether evaluating ast might cost more than the
// limit. Without comprehensions, each call runs once and, with the size
// checks, works on values of bounded size: a few dozen calls cannot do
// much. Otherwise cel-go's static estimate decides, when the expression
// type-checks; it is unbounded as soon as the work depends on the data.
func (e *Env) needsCostTracking(a *celgo.Ast, checked bool) bool {
	if e.limits.checksSize() {
		calls, loops := 0, false
		ast.PostOrderVisit(a.NativeRep().Expr(), ast.NewExprVisitor(func(x ast.Expr) {
			switch x.Kind() {
			case ast.CallKind:
				calls++
			case ast.ComprehensionKind:
				loops = true
			}
		}))
		if !loops && calls <= loopFreeCalls {
			return false
		}
	}
	if !checked {
		return true
	}
	est, err := e.env.EstimateCost(a, unknownSizes{})
	return err != nil || est.Max > e.limits.Cost
}

// mayBeLarge reports whether a value of type t can be a string, bytes, a
// list or a map.
func mayBeLarge(t *types.Type) bool {
	switch t.Kind() {
	case types.BoolKind, types.IntKind, types.UintKind, types.DoubleKind, types.NullTypeKind,
		types.TimestampKind, types.DurationKind, types.TypeKind:
		return false
	}
	return true
}

// unknownSizes is a cost estimator that knows nothing of the variables'
// sizes, so any cost that depends on them is unbounded.
type unknownSizes struct{}

// EstimateSize implements checker.CostEstimator.
func (unknownSizes) EstimateSize(checker.AstNode) *checker.SizeEstimate { return nil }

// EstimateCallCost implements checker.CostEstimator.
func (unknownSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// shared holds the environments Shared hands out, by their limits.
var shared = lru.New[Limits, *Env](16)

// Shared returns an environment with limits l (zero fields take their
// defaults), the same one to every caller with the same limits, so that
// they share compiled expressions: an Env is immutable apart from its
// caches, which are bounded and safe for concurrent use. Engines use it,
// so that creating an engine costs no new environment and an expression
// compiled by one engine is ready for the next.
func Shared(l Limits) (*Env, error) {
	l = l.withDefaults()
	if e, ok := shared.Get(l); ok {
		return e, nil
	}
	e, err := NewEnv(WithLimits(l))
	if err != nil {
		return nil, err
	}
	return shared.Add(l, e), nil
}
