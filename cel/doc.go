// Package cel evaluates the expressions of a flow definition: bare CEL in
// `expression` actions, `each.in` and step `if` fields, and `${...}` templates
// in action arguments.
//
// An Env holds one cel-go environment (the standard library plus the ext
// string functions and two-variable comprehensions) with the variables
// state, outputs and item declared as dyn. Programs and templates are compiled
// once per source text, cached in the Env, and are safe for concurrent use.
//
// Results are JSON data as CrewAI produces them: int64, float64, string, bool,
// nil, []any and map[string]any; bytes become base64 text, timestamps and
// durations become the text Python's str() gives them.
//
// Every evaluation is bounded by Limits (DefaultCost, DefaultSize unless
// the Env is built WithLimits): past a limit it fails with a *LimitError
// wrapping ErrCostLimit or ErrSizeLimit.
//
// CheckExpr, CheckTemplate and CheckValue validate without evaluating and
// report problems with CrewAI's message texts, for the flow loader.
//
// Start with [NewEnv] and [Shared] (env.go), then [Program] (program.go)
// and [Template] (template.go); load-time checks are in check*.go.
//
// It imports cel-go and internal packages only; it must not import flow or
// action.
package cel
