package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/internal/fakescript"
	"github.com/troupe-dev/troupe/internal/jsondata"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/schema"
)

// ErrUnmatched is wrapped by the error of a call no reply answers.
var ErrUnmatched = errors.New("fake: no reply matches the tool call")

// A ToolError is the failure a reply's Error scripts. Its text is the
// message as written, with no prefix, so that a model sees what a real
// tool would have said.
type ToolError struct {
	Tool    string // the tool's name
	Message string // the reply's error, as written
}

// Error implements error.
func (e *ToolError) Error() string { return e.Message }

// Tool is a scripted [action.Tool] that records the arguments of every
// call. It is safe for concurrent use; replies are chosen in script order,
// and a reply's times are never exceeded however many calls race for it.
type Tool struct {
	spec    llm.ToolSpec
	schema  *schema.Schema
	entries []*entry
	err     error // a problem in the spec or the replies, reported by every call

	noRecording atomic.Bool
	calls       atomic.Int64

	mu       sync.Mutex
	recorded []json.RawMessage
}

var _ action.Tool = (*Tool)(nil)

// NewTool returns a tool with the given spec answering with replies.
// Without Parameters the tool takes any JSON object. A spec without a name
// or whose Parameters are not a valid JSON Schema, or an invalid reply (a
// bad regular expression, both result and error, ...), makes every call
// fail with an error saying which; [Tool.Err] reports it at once.
func NewTool(spec llm.ToolSpec, replies ...ToolReply) *Tool {
	t := &Tool{spec: spec}
	if spec.Name == "" {
		t.err = errors.New("fake: a tool has no name")
		return t
	}
	if err := t.setSpec(spec); err != nil {
		t.err = fmt.Errorf("fake: tool %q: parameters: %w", spec.Name, err)
		return t
	}
	t.entries = make([]*entry, 0, len(replies))
	for i, r := range replies {
		e, err := compile(r)
		if err != nil {
			t.err = fmt.Errorf("fake: tool %q: replies[%d].%w", spec.Name, i, err)
			t.entries = nil
			return t
		}
		t.entries = append(t.entries, e)
	}
	return t
}

// setSpec keeps spec, with a copy of its parameters ({"type": "object"}
// when it has none), and compiles them.
func (t *Tool) setSpec(spec llm.ToolSpec) error {
	params := map[string]any{"type": "object"}
	if spec.Parameters != nil {
		// A copy, so that the caller's map may change afterwards.
		var err error
		if params, err = jsondata.CloneMap(spec.Parameters); err != nil {
			return err
		}
	}
	s, err := schema.Compile(params)
	if err != nil {
		return err
	}
	spec.Parameters = params
	t.spec, t.schema = spec, s
	return nil
}

// Err returns the problem found by [NewTool], or nil.
func (t *Tool) Err() error { return t.err }

// Spec implements [action.Tool]. Its Parameters are those given, or
// {"type": "object"}.
func (t *Tool) Spec() llm.ToolSpec { return t.spec }

// WithRecording sets whether calls are recorded (default true) and returns
// t. Turn it off in benchmarks, where recording would hold every call's
// arguments in memory.
func (t *Tool) WithRecording(enabled bool) *Tool {
	t.noRecording.Store(!enabled)
	return t
}

// Calls returns copies of the arguments of the recorded calls (answered or
// not), as received, in the order received.
func (t *Tool) Calls() []json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]json.RawMessage, len(t.recorded))
	for i, a := range t.recorded {
		out[i] = bytes.Clone(a)
	}
	return out
}

// Reset forgets the recorded calls and restores every reply's times.
func (t *Tool) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.recorded = nil
	t.calls.Store(0)
	for _, e := range t.entries {
		e.Reset()
	}
}

// Call implements [action.Tool]: it records args, decodes them, coerces
// them like pydantic's lax mode and validates them against the parameters
// (a mismatch is an [*action.ArgumentError]), then answers with the first
// reply that matches them and has a use left. Empty args are "{}".
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	n := t.calls.Add(1)
	if !t.noRecording.Load() {
		c := bytes.Clone(args)
		if c == nil {
			c = json.RawMessage{}
		}
		t.mu.Lock()
		t.recorded = append(t.recorded, c)
		t.mu.Unlock()
	}
	if t.err != nil {
		return nil, t.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := t.conform(args)
	if err != nil {
		return nil, &action.ArgumentError{Tool: t.spec.Name, Err: err}
	}
	call := arguments{value: v}
	e := t.choose(&call)
	if e == nil {
		return nil, t.unmatched(n, call.text())
	}
	if err := fakescript.Wait(ctx, e.delay); err != nil {
		return nil, err
	}
	if e.err != "" {
		return nil, &ToolError{Tool: t.spec.Name, Message: e.err}
	}
	return e.answer(), nil
}

// conform decodes args, coerces them in pydantic's lax mode when they are
// an object, and validates them, like [schema.Schema.ConformJSON] but with
// the faster decoder of package jsondata.
func (t *Tool) conform(args json.RawMessage) (any, error) {
	v, err := jsondata.Decode(args)
	if err != nil {
		return nil, &schema.JSONError{Err: err}
	}
	if obj, ok := v.(map[string]any); ok {
		out, err := t.schema.Conform(obj)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	if err := t.schema.Validate(v); err != nil {
		return nil, err
	}
	return v, nil
}

// choose returns the first entry that matches and still has a use left,
// claiming that use, or nil.
func (t *Tool) choose(args *arguments) *entry {
	for _, e := range t.entries {
		if e.Exhausted() || !e.matches(args) {
			continue
		}
		if e.Claim() {
			return e
		}
	}
	return nil
}

// unmatched builds the error of call n, which no entry answers.
func (t *Tool) unmatched(n int64, args string) error {
	hint := "add a reply whose match fits them, or one without match" + fakescript.UsedUp(t.entries)
	return fmt.Errorf("%w: tool %q (call %d) got the arguments %s; %s", ErrUnmatched, t.spec.Name, n, head(args, 300), hint)
}

// head returns the first n bytes of s (cut at a rune boundary), with "..."
// after them when something was cut.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
