package flow

import (
	"context"
	"sync/atomic"

	"github.com/troupe-dev/troupe/action"
)

// EffectKind tells what kind of side effect an Effect is.
type EffectKind string

// Kinds of Effect.
const (
	EffectMethod EffectKind = "method" // a method's action
	EffectLLM    EffectKind = "llm"    // one model call made by an agent
	EffectTool   EffectKind = "tool"   // one tool call made by an agent
)

// An Effect names one side effect of a run: a method's action, or one model
// or tool call an agent makes inside it. Its fields are stable across a
// replay of the same run, so persistence, tracing, budgets or a
// durable-execution engine can key their records on them.
type Effect struct {
	RunID  string
	Flow   string
	Method string
	// Invocation counts the method's runs in this run, from 1.
	Invocation int
	// Kind is EffectMethod, EffectLLM or EffectTool.
	Kind EffectKind
	// Name is the model or tool name of an LLM or tool call.
	Name string
	// Index numbers the LLM and tool calls of one method invocation, from
	// 1 in the order they start; 0 for the method itself.
	Index int
}

// An Interceptor wraps every side effect of every run: it gets the effect
// and the function that performs it, and returns what the function
// returns (an LLM call returns *llm.Response, a tool call its result). It
// may call next once, skip it (returning a recorded result), or retry it.
// Streamed model calls are intercepted too: next returns the collected
// response once every chunk went out as an event.
type Interceptor func(ctx context.Context, c Effect, next func(context.Context) (any, error)) (any, error)

// WithInterceptor wraps every side effect in i. Several interceptors nest
// in the order given: the first is the outermost.
func WithInterceptor(i Interceptor) Option {
	return func(e *Engine) { e.intercept = append(e.intercept, i) }
}

// intercepted runs next through the engine's interceptors.
func (e *Engine) intercepted(ctx context.Context, c Effect, next func(context.Context) (any, error)) (any, error) {
	for i := len(e.intercept) - 1; i >= 0; i-- {
		ic, inner := e.intercept[i], next
		next = func(ctx context.Context) (any, error) { return ic(ctx, c, inner) }
	}
	return next(ctx)
}

// invocation is the method call an agent's model and tool calls belong to.
type invocation struct {
	call   Effect
	calls  atomic.Int32
	budget *budgetState
}

type invocationKey struct{}

// invoke runs a method's action through the engine's interceptors.
func (r *run) invoke(ctx context.Context, cm *cmethod, trigger any) (any, error) {
	budget := r.budget()
	if len(r.e.intercept) == 0 && budget == nil {
		return cm.run(ctx, r, cm.scope, trigger)
	}
	inv := &invocation{call: Effect{RunID: r.res.RunID, Flow: r.p.def.Name, Method: cm.name, Kind: EffectMethod,
		Invocation: int(r.methods[cm.idx].invocations.Add(1))}, budget: budget}
	ctx = context.WithValue(ctx, invocationKey{}, inv)
	return r.e.intercepted(ctx, inv.call, func(ctx context.Context) (any, error) {
		return cm.run(ctx, r, cm.scope, trigger)
	})
}

// sideCall returns the Effect of the next model or tool call in ctx's
// method invocation.
func sideCall(ctx context.Context, kind EffectKind, name string) (Effect, bool) {
	inv, ok := ctx.Value(invocationKey{}).(*invocation)
	if !ok {
		return Effect{}, false
	}
	c := inv.call
	c.Kind, c.Name, c.Index = kind, name, int(inv.calls.Add(1))
	return c, true
}

// interceptCalls passes an agent's or crew's model and tool calls through
// the engine's interceptors. The tools and the model are not wrapped, so
// nothing the agent knows about them changes.
func (e *Engine) interceptCalls(ctx context.Context, c action.Call, next func(context.Context) (any, error)) (any, error) {
	kind := EffectTool
	if c.Kind == action.CallModel {
		kind = EffectLLM
	}
	eff, ok := sideCall(ctx, kind, c.Name)
	if !ok {
		return next(ctx)
	}
	if inv := ctx.Value(invocationKey{}).(*invocation); inv.budget != nil {
		return inv.budget.call(ctx, kind, eff.Method, c.Agent, c.Name, func(ctx context.Context) (any, error) {
			return e.intercepted(ctx, eff, next)
		})
	}
	return e.intercepted(ctx, eff, next)
}
