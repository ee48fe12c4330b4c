package flow

import "context"

// A MethodCall names one side effect of a run: one call of a method's
// action. Its fields are stable across a replay of the same run, so
// persistence, tracing, budgets or a durable-execution engine can key their
// records on them.
type MethodCall struct {
	RunID  string
	Flow   string
	Method string
	// Invocation counts the method's runs in this run, from 1.
	Invocation int
}

// An Interceptor wraps every method action of every run: it gets the call
// and the function that performs it, and returns what the method returns.
// It may call next once, skip it (returning a recorded result), or retry
// it.
type Interceptor func(ctx context.Context, c MethodCall, next func(context.Context) (any, error)) (any, error)

// WithInterceptor wraps every method action in i. Several interceptors
// nest in the order given: the first is the outermost.
func WithInterceptor(i Interceptor) Option {
	return func(e *Engine) { e.intercept = append(e.intercept, i) }
}

// invoke runs a method's action through the engine's interceptors.
func (r *run) invoke(ctx context.Context, cm *cmethod, trigger any) (any, error) {
	if len(r.e.intercept) == 0 {
		return cm.run(ctx, r, cm.scope, trigger)
	}
	step := MethodCall{RunID: r.id, Flow: r.p.def.Name, Method: cm.name, Invocation: int(r.methods[cm.idx].invocations.Add(1))}
	next := func(ctx context.Context) (any, error) { return cm.run(ctx, r, cm.scope, trigger) }
	for i := len(r.e.intercept) - 1; i >= 0; i-- {
		ic, inner := r.e.intercept[i], next
		next = func(ctx context.Context) (any, error) { return ic(ctx, step, inner) }
	}
	return next(ctx)
}
