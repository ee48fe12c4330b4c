package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
)

// Kinds of Effect.
const (
	EffectMethod = "method" // a method's action
	EffectLLM    = "llm"    // one model call made by an agent
	EffectTool   = "tool"   // one tool call made by an agent
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
	Kind string
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
// Streaming model calls are not intercepted.
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
	call  Effect
	calls atomic.Int32
}

type invocationKey struct{}

// invoke runs a method's action through the engine's interceptors.
func (r *run) invoke(ctx context.Context, cm *cmethod, trigger any) (any, error) {
	if len(r.e.intercept) == 0 {
		return cm.run(ctx, r, cm.scope, trigger)
	}
	inv := &invocation{call: Effect{RunID: r.res.RunID, Flow: r.p.def.Name, Method: cm.name, Kind: EffectMethod,
		Invocation: int(r.methods[cm.idx].invocations.Add(1))}}
	ctx = context.WithValue(ctx, invocationKey{}, inv)
	return r.e.intercepted(ctx, inv.call, func(ctx context.Context) (any, error) {
		return cm.run(ctx, r, cm.scope, trigger)
	})
}

// sideCall returns the Effect of the next model or tool call in ctx's
// method invocation.
func sideCall(ctx context.Context, kind, name string) (Effect, bool) {
	inv, ok := ctx.Value(invocationKey{}).(*invocation)
	if !ok {
		return Effect{}, false
	}
	c := inv.call
	c.Kind, c.Name, c.Index = kind, name, int(inv.calls.Add(1))
	return c, true
}

// interceptAgent makes an agent's model and tools go through the engine's
// interceptors.
func (e *Engine) interceptAgent(spec *action.AgentSpec) {
	if len(e.intercept) == 0 {
		return
	}
	spec.Model = interceptedModel{LLM: spec.Model, e: e}
	for i, t := range spec.Tools {
		spec.Tools[i] = interceptedTool{Tool: t, e: e}
	}
}

type interceptedModel struct {
	llm.LLM
	e *Engine
}

func (m interceptedModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	c, ok := sideCall(ctx, EffectLLM, req.Model)
	if !ok {
		return m.LLM.Generate(ctx, req)
	}
	out, err := m.e.intercepted(ctx, c, func(ctx context.Context) (any, error) { return m.LLM.Generate(ctx, req) })
	if err != nil {
		return nil, err
	}
	resp, ok := out.(*llm.Response)
	if !ok {
		return nil, fmt.Errorf("flow: an interceptor returned %T for an LLM call; want *llm.Response", out)
	}
	return resp, nil
}

func (m interceptedModel) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error] {
	return m.LLM.Stream(ctx, req)
}

// Capabilities reports the wrapped model's capabilities.
func (m interceptedModel) Capabilities() llm.Capabilities {
	if cr, ok := m.LLM.(llm.CapabilityReporter); ok {
		return cr.Capabilities()
	}
	return llm.Capabilities{ToolCalls: true, ParallelToolCalls: true, StructuredOutput: true, Streaming: true}
}

type interceptedTool struct {
	action.Tool
	e *Engine
}

func (t interceptedTool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	c, ok := sideCall(ctx, EffectTool, t.Spec().Name)
	if !ok {
		return t.Tool.Call(ctx, args)
	}
	return t.e.intercepted(ctx, c, func(ctx context.Context) (any, error) { return t.Tool.Call(ctx, args) })
}
