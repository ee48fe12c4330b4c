package cel

import (
	"errors"
	"fmt"
	"math"
)

// Limits bound one evaluation of an expression (each ${...} of a template
// is one), so that a small definition cannot take a process down: a loop
// over a billion steps, or a string doubled fifty times. An evaluation
// that goes past a limit fails with a *LimitError.
type Limits struct {
	// Cost bounds the work of one evaluation, in cel-go's runtime cost
	// units: about one per operation and per comprehension step, plus an
	// amount that grows with the length of the strings and lists a
	// function reads or builds. Expressions that cannot cost much run
	// without cost tracking, which has a price: those without
	// comprehensions and with at most a few dozen calls (their values are
	// bounded by Size), and those whose cost cel-go bounds statically
	// within the limit. 0 means DefaultCost; math.MaxUint64 turns cost
	// tracking off.
	Cost uint64
	// Size bounds, in bytes, the values an evaluation produces, counting
	// the bytes of a string and ElementBytes for each element of a list or
	// map: each string or list a function returns, and the result, whose
	// copy holds every value as many times as the result refers to it.
	// Functions that can multiply their input (join, replace, format) are
	// checked before they run. A value only read (a large state.document)
	// is not limited, unless it is part of the result. 0 means
	// DefaultSize; math.MaxInt turns size checks off.
	Size int
}

// Default limits: ten million cost units take well under a second, and
// are thousands of times what flow expressions usually need; 16 MiB is
// more than the text a model reads or writes in one call.
const (
	DefaultCost uint64 = 10_000_000
	DefaultSize int    = 16 << 20
)

// ElementBytes is what one element of a list or one entry of a map counts
// for Limits.Size: about what it takes in memory.
const ElementBytes = 16

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	if l.Cost == 0 {
		l.Cost = DefaultCost
	}
	if l.Size <= 0 {
		l.Size = DefaultSize
	}
	return l
}

func (l Limits) tracksCost() bool { return l.Cost != math.MaxUint64 }

func (l Limits) checksSize() bool { return l.Size != math.MaxInt }

// Errors a *LimitError wraps, for errors.Is.
var (
	ErrCostLimit = errors.New("cel: cost limit exceeded")
	ErrSizeLimit = errors.New("cel: size limit exceeded")
)

// LimitError reports an evaluation stopped by Limits.
type LimitError struct {
	// Err is ErrCostLimit or ErrSizeLimit.
	Err error
	// Limit is the limit that was passed.
	Limit uint64
	// What describes the value that was too large (size limit only), such
	// as "a string of 33554432 bytes".
	What string
}

// Error says which limit was passed and how to change it.
func (e *LimitError) Error() string {
	if errors.Is(e.Err, ErrCostLimit) {
		return fmt.Sprintf("%v: the expression does more than %d units of work (raise cel.Limits.Cost to allow it)", e.Err, e.Limit)
	}
	return fmt.Sprintf("%v: the expression produces %s, more than %d bytes (raise cel.Limits.Size to allow it)", e.Err, e.What, e.Limit)
}

// Unwrap returns ErrCostLimit or ErrSizeLimit.
func (e *LimitError) Unwrap() error { return e.Err }

// An EnvOption configures an Env.
type EnvOption func(*envConfig)

type envConfig struct {
	limits Limits
	vars   []string
}

// WithVariables declares more root variables (as dyn) beside state,
// outputs and item, such as the tool, args and result that agent
// state-machine events read. Expressions read them from [Vars.Extra].
func WithVariables(names ...string) EnvOption {
	return func(c *envConfig) { c.vars = append(c.vars, names...) }
}

// WithLimits sets the limits of every evaluation in the environment.
// Without it, DefaultCost and DefaultSize apply.
func WithLimits(l Limits) EnvOption {
	return func(c *envConfig) { c.limits = l }
}

func sizeError(limit int, what string) *LimitError {
	return &LimitError{Err: ErrSizeLimit, Limit: uint64(limit), What: what}
}
