package flow

import "github.com/troupe-dev/troupe/cel"

// WithCELLimits bounds every CEL evaluation of the engine's runs (each
// expression action, each.in, step if, and each ${...} of a template): its
// cost (the work done; cel.DefaultCost) and the size of the values it
// produces (cel.DefaultSize). An evaluation past a limit fails its method
// with an error that wraps cel.ErrCostLimit or cel.ErrSizeLimit. Without
// this option the defaults apply; zero fields keep their default, and
// math.MaxUint64 / math.MaxInt lift a limit.
func WithCELLimits(l cel.Limits) Option {
	return func(e *Engine) { e.env, e.envErr = cel.Shared(l) }
}
