package flow

import (
	"context"
	"strconv"
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
	// EffectMemory is one memory read (Name "recall", result []string) or
	// write (Name "remember", result nil) the engine makes for an agent.
	EffectMemory EffectKind = "memory"
)

// An Effect names one side effect of a run: a method's action, or one model
// or tool call an agent makes inside it. Its fields depend on the effect's
// position in the run, not on timing, so they are the same when the run is
// replayed (even when tool calls run in parallel), and persistence,
// tracing, budgets or a durable-execution engine can key their records on
// them; [Effect.Key] is the canonical key.
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
	// Scope is the path from the method invocation to the agent run that
	// makes a model or tool call: "" for the method's first agent run,
	// "agent#2" for its second (a crew's next task, a guardrail's judge, a
	// retry), and under a tool call that runs agents (a delegation) the
	// tool call's key segments, as in "tool#2.1/agent#2". Empty for the
	// method itself.
	Scope string
	// Turn numbers the model calls of one agent run from 1; a tool call
	// has the turn of the model response that asked for it. 0 for the
	// method itself.
	Turn int
	// Index is the turn of a model call and the position of a tool call in
	// its model response (from 1); 0 for the method itself.
	Index int
}

// Key returns the effect's canonical key, "run/method#invocation" for a
// method's action and "run/method#invocation[/scope]/kind#index" for a
// model call ("llm#3": turn 3), a tool call ("tool#3.2": the second call
// of turn 3's response) or a memory read or write ("memory#2": the scope's
// second).
func (c Effect) Key() string {
	b := make([]byte, 0, len(c.RunID)+len(c.Method)+len(c.Scope)+24)
	b = append(b, c.RunID...)
	b = append(b, '/')
	b = append(b, c.Method...)
	b = append(b, '#')
	b = strconv.AppendInt(b, int64(c.Invocation), 10)
	if c.Kind == EffectMethod || c.Kind == "" {
		return string(b)
	}
	if c.Scope != "" {
		b = append(b, '/')
		b = append(b, c.Scope...)
	}
	b = append(b, '/')
	return string(appendSegment(b, c.Kind, c.Turn, c.Index))
}

// appendSegment appends the last segment of a model or tool call's key.
func appendSegment(b []byte, kind EffectKind, turn, index int) []byte {
	b = append(b, kind...)
	b = append(b, '#')
	if kind == EffectTool {
		b = strconv.AppendInt(b, int64(turn), 10)
		b = append(b, '.')
	}
	return strconv.AppendInt(b, int64(index), 10)
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

// WithToolRound makes agents run the tool calls of each model response with
// round instead of concurrently: [action.SequentialTools] for a durable
// engine whose step records are positional.
func WithToolRound(round action.ToolRound) Option {
	return func(e *Engine) { e.toolRound = round }
}

// intercepted runs next through the engine's interceptors.
func (e *Engine) intercepted(ctx context.Context, c Effect, next func(context.Context) (any, error)) (any, error) {
	for i := len(e.intercept) - 1; i >= 0; i-- {
		ic, inner := e.intercept[i], next
		next = func(ctx context.Context) (any, error) { return ic(ctx, c, inner) }
	}
	return next(ctx)
}

// effectScope is where an agent's model and tool calls happen: a method
// invocation, or a tool call that runs agents of its own. Agent runs in one
// scope follow one another (a crew's tasks, guardrails, retries), so a
// model call of turn 1 starts the next one; tool calls of one round may run
// in parallel, each in a scope of its own.
type effectScope struct {
	call  Effect // the method's Effect
	scope string // the Scope of calls made directly in this scope's first agent run
	// agents counts the agent runs started in this scope.
	agents atomic.Int32
	// memory counts the memory effects made in this scope.
	memory atomic.Int32
	// budget is the run's budget state, nil when the run has none.
	budget *budgetState
}

type effectScopeKey struct{}

// invoke runs a method's action through the engine's interceptors.
func (r *run) invoke(ctx context.Context, cm *cmethod, trigger any) (any, error) {
	budget := r.budget()
	if len(r.e.intercept) == 0 && r.drv == nil && budget == nil {
		return cm.run(ctx, r, cm.scope, trigger)
	}
	sc := &effectScope{call: Effect{RunID: r.res.RunID, Flow: r.p.def.Name, Method: cm.name, Kind: EffectMethod,
		Invocation: int(r.methods[cm.idx].invocations.Add(1))}, budget: budget}
	ctx = context.WithValue(ctx, effectScopeKey{}, sc)
	act := func(ctx context.Context) (any, error) {
		return cm.run(ctx, r, cm.scope, trigger)
	}
	if r.drv != nil {
		run := act
		act = func(ctx context.Context) (any, error) {
			return r.drv.await(ctx, &Job{Effect: sc.call, Trigger: trigger, run: run})
		}
	}
	return r.e.intercepted(ctx, sc.call, act)
}

// sideCall returns the Effect of model or tool call c in ctx's scope.
func sideCall(ctx context.Context, kind EffectKind, c action.Call) (Effect, *effectScope, bool) {
	sc, ok := ctx.Value(effectScopeKey{}).(*effectScope)
	if !ok {
		return Effect{}, nil, false
	}
	var agent int32
	if kind == EffectLLM && c.Turn <= 1 {
		agent = sc.agents.Add(1)
	} else {
		agent = max(sc.agents.Load(), 1)
	}
	e := sc.call
	e.Kind, e.Name, e.Scope, e.Turn = kind, c.Name, sc.scope, c.Turn
	if agent > 1 {
		e.Scope = joinScope(sc.scope, "agent#"+strconv.Itoa(int(agent)))
	}
	e.Index = c.Turn
	if kind == EffectTool {
		e.Index = c.Position
	}
	return e, sc, true
}

func joinScope(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// interceptCalls passes an agent's or crew's model and tool calls through
// the engine's interceptors. The tools and the model are not wrapped, so
// nothing the agent knows about them changes.
func (e *Engine) interceptCalls(ctx context.Context, c action.Call, next func(context.Context) (any, error)) (any, error) {
	kind := EffectTool
	if c.Kind == action.CallModel {
		kind = EffectLLM
		if e.retry != nil {
			next = e.retry.retried(e.clock, next)
		}
	}
	eff, sc, ok := sideCall(ctx, kind, c)
	if !ok {
		return next(ctx)
	}
	if kind == EffectTool {
		// Agents the tool runs (a delegation) make their calls in a scope
		// of their own, so parallel tool calls never share a counter.
		inner := &effectScope{call: sc.call, scope: joinScope(eff.Scope, string(appendSegment(nil, EffectTool, eff.Turn, eff.Index))), budget: sc.budget}
		ctx = context.WithValue(ctx, effectScopeKey{}, inner)
	}
	if sc.budget != nil {
		return sc.budget.call(ctx, kind, eff.Method, c.Agent, c.Name, func(ctx context.Context) (any, error) {
			return e.intercepted(ctx, eff, next)
		})
	}
	return e.intercepted(ctx, eff, next)
}
