package action

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/llm"
)

// CallKind tells a model call from a tool call.
type CallKind string

// The kinds of [Call].
const (
	CallModel CallKind = "llm"
	CallTool  CallKind = "tool"
)

// A Call is one model or tool call an agent makes, as an [Interceptor]
// sees it. Its position fields depend only on the conversation, not on
// timing, so they are the same when a run is replayed.
type Call struct {
	Kind CallKind
	// Agent is the role of the calling agent; Task the crew task's label,
	// when there is one.
	Agent string
	Task  string
	// Name is the model's name (AgentSpec.ModelName) for a model call and
	// the tool's name for a tool call.
	Name string
	// Turn numbers the agent's model calls from 1; a tool call has the
	// turn of the model response that asked for it.
	Turn int
	// Position numbers the tool calls of one model response from 1; 0 for
	// a model call.
	Position int
	// Request is the model request of a model call (do not modify it).
	Request *llm.Request
	// ToolCall is the call the model asked for, for a tool call.
	ToolCall *llm.ToolCall
	// Stream is set when the model call streams; next then returns the
	// collected response, after the chunks went to the observer.
	Stream bool
}

// An Interceptor wraps every model and tool call of an agent or crew run:
// it gets the call and the function that makes it, and returns what that
// function returns (*llm.Response for a model call, the tool's result for
// a tool call). It may call next once, skip it (returning a recorded
// result) or retry it. The tool itself is not wrapped, so everything the
// agent knows about it (ResultAsAnswer, its own argument checks) holds.
type Interceptor func(ctx context.Context, c Call, next func(context.Context) (any, error)) (any, error)

// intercepted runs next through em's interceptor, if any. It reports the
// call replayed when the interceptor returned a result without calling
// next: a durable engine served it from its record. (An error returned
// without next, such as a budget's refusal, is not a replay.)
func (e emitter) intercepted(ctx context.Context, c Call, next func(context.Context) (any, error)) (v any, replayed bool, err error) {
	if e.intercept == nil {
		v, err = next(ctx)
		return v, false, err
	}
	ran := false
	v, err = e.intercept(ctx, c, func(ctx context.Context) (any, error) {
		ran = true
		return next(ctx)
	})
	return v, !ran && err == nil, err
}

// interceptedModel makes a model call through em's interceptor and checks
// what it returns; see intercepted for replayed.
func (e emitter) interceptedModel(ctx context.Context, c Call, next func(context.Context) (*llm.Response, error)) (*llm.Response, bool, error) {
	if e.intercept == nil {
		resp, err := next(ctx)
		return resp, false, err
	}
	out, replayed, err := e.intercepted(ctx, c, func(ctx context.Context) (any, error) { return next(ctx) })
	if err != nil {
		return nil, false, err
	}
	resp, ok := out.(*llm.Response)
	if !ok {
		return nil, false, fmt.Errorf("action: an interceptor returned %T for a model call; want *llm.Response", out)
	}
	return resp, replayed, nil
}
