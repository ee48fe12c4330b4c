package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/schema"
)

// An ArgumentError reports tool arguments that are not valid JSON or do not
// match the tool's schema. Agents send its message back to the model.
type ArgumentError struct {
	Tool string
	Err  error
}

// Error implements error.
func (e *ArgumentError) Error() string {
	return fmt.Sprintf("action: tool %q: invalid arguments: %v", e.Tool, e.Err)
}

// Unwrap returns the decoding or validation error.
func (e *ArgumentError) Unwrap() error { return e.Err }

// typedTool is the Tool NewTool returns.
type typedTool[In, Out any] struct {
	spec   llm.ToolSpec
	schema *schema.Schema
	fn     func(context.Context, In) (Out, error)
}

// NewTool returns a Tool that calls fn. Its argument schema is reflected from
// In (a struct, normally, with json and jsonschema tags); arguments are
// decoded, coerced the way pydantic's lax mode does and validated against the
// schema before fn runs, and a mismatch is an [*ArgumentError]. An In whose
// schema cannot be made (a channel field, a jsonschema tag a comma cuts off,
// see schema.Reflect) is an error here, not at the first call.
func NewTool[In, Out any](name, description string, fn func(context.Context, In) (Out, error)) (Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("action: tool %q has no function", name)
	}
	t := &typedTool[In, Out]{spec: llm.ToolSpec{Name: name, Description: description}, fn: fn}
	var zero In
	doc, err := schema.Reflect(&zero)
	if err != nil {
		return nil, fmt.Errorf("action: tool %q: %w", name, err)
	}
	t.spec.Parameters = doc
	if t.schema, err = schema.Compile(doc); err != nil {
		return nil, fmt.Errorf("action: tool %q: %w", name, err)
	}
	return t, nil
}

// MustNewTool is NewTool for tools whose argument type is known to be fine,
// such as those declared at package level: it panics on NewTool's error.
func MustNewTool[In, Out any](name, description string, fn func(context.Context, In) (Out, error)) Tool {
	t, err := NewTool(name, description, fn)
	if err != nil {
		panic(err)
	}
	return t
}

// Spec implements Tool.
func (t *typedTool[In, Out]) Spec() llm.ToolSpec { return t.spec }

// validatesArguments marks tools whose Call validates its arguments itself.
func (t *typedTool[In, Out]) validatesArguments() {}

// Call implements Tool.
func (t *typedTool[In, Out]) Call(ctx context.Context, args json.RawMessage) (any, error) {
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := t.schema.ConformJSON(args)
	if err != nil {
		return nil, &ArgumentError{Tool: t.spec.Name, Err: err}
	}
	in, err := decodeInto[In](v)
	if err != nil {
		return nil, &ArgumentError{Tool: t.spec.Name, Err: err}
	}
	return t.fn(ctx, in)
}

// decodeInto converts JSON data into a value of type T through JSON text.
func decodeInto[T any](v any) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(b, &out)
	return out, err
}

// ToolFunc adapts a plain function with a fixed spec into a Tool. Agents
// validate the arguments against Spec.Parameters before calling Fn.
type ToolFunc struct {
	ToolSpec llm.ToolSpec
	Fn       func(ctx context.Context, args json.RawMessage) (any, error)
}

// Spec implements Tool.
func (f *ToolFunc) Spec() llm.ToolSpec { return f.ToolSpec }

// Call implements Tool.
func (f *ToolFunc) Call(ctx context.Context, args json.RawMessage) (any, error) {
	if f.Fn == nil {
		return nil, fmt.Errorf("action: tool %q has no function", f.ToolSpec.Name)
	}
	return f.Fn(ctx, args)
}

// answerTool marks a tool whose successful result is the agent's final answer.
type answerTool struct{ Tool }

// ResultAsAnswer returns t marked so that, when an agent calls it and it
// succeeds, its result is the agent's final answer (CrewAI's
// result_as_answer).
func ResultAsAnswer(t Tool) Tool { return answerTool{t} }

// isAnswerTool reports whether t was marked by ResultAsAnswer.
func isAnswerTool(t Tool) bool {
	_, ok := t.(answerTool)
	return ok
}

// Tools is a registry of tools by name. It is not safe to modify
// concurrently with lookups; build it once, then share it.
type Tools struct {
	byName map[string]Tool
	names  []string
}

// NewTools returns a registry holding tools. Tools without a name or with a
// name already taken are an error.
func NewTools(tools ...Tool) (*Tools, error) {
	r := &Tools{byName: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add registers t.
func (r *Tools) Add(t Tool) error {
	if t == nil {
		return errors.New("action: nil tool")
	}
	name := t.Spec().Name
	if name == "" {
		return errors.New("action: tool without a name")
	}
	if _, dup := r.byName[name]; dup {
		return fmt.Errorf("action: tool %q registered twice", name)
	}
	if r.byName == nil {
		r.byName = map[string]Tool{}
	}
	r.byName[name] = t
	r.names = append(r.names, name)
	return nil
}

// Get returns the tool with the given name.
func (r *Tools) Get(name string) (Tool, bool) {
	if r == nil {
		return nil, false
	}
	t, ok := r.byName[name]
	return t, ok
}

// Names returns the registered names, sorted.
func (r *Tools) Names() []string {
	if r == nil {
		return nil
	}
	out := slices.Clone(r.names)
	slices.Sort(out)
	return out
}

// An UnknownToolError reports an agent naming a tool that is not registered.
type UnknownToolError struct {
	Agent, Tool string
}

// Error implements error.
func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("action: agent %q: unknown tool %q", e.Agent, e.Tool)
}

// Resolve returns the tools named by an agent's tools list, in order. A name
// that is not registered is an [*UnknownToolError] naming the agent and the
// tool.
func (r *Tools) Resolve(agent string, names []string) ([]Tool, error) {
	out := make([]Tool, 0, len(names))
	for _, n := range names {
		t, ok := r.Get(n)
		if !ok {
			return nil, &UnknownToolError{Agent: agent, Tool: n}
		}
		out = append(out, t)
	}
	return out, nil
}
