package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/troupe-dev/troupe/internal/pyjson"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/schema"
)

// Reasons of a [ToolFailure].
const (
	FailureUnknownTool  = "unknown_tool"
	FailureInvalidInput = "invalid_input"
	FailureToolError    = "tool_error"
	FailureTimeout      = "timeout"
)

// A ToolFailure records a tool call that did not succeed; the model was told
// Message as the call's observation.
type ToolFailure struct {
	Tool      string
	Reason    string // one of the Failure* constants
	Message   string
	Arguments json.RawMessage
}

// maxRepeats is how many identical repeated calls (same tool, arguments and
// result) an agent may make before it must give its final answer.
const maxRepeats = 2

// toolEntry is a tool prepared for one agent run.
type toolEntry struct {
	tool    Tool
	spec    llm.ToolSpec
	schema  *schema.Schema // checks arguments of tools that do not check them
	answer  bool
	timeout time.Duration // bounds one call; 0: no bound
}

// toolbox runs an agent's tool calls and remembers them to catch repeats.
type toolbox struct {
	entries []*toolEntry
	byName  map[string]*toolEntry
	names   []string
	specs   []llm.ToolSpec

	// session is the run's Session, asked before each call; nil: none.
	session Session

	mu       sync.Mutex
	seen     map[string]string // tool + canonical arguments -> result
	repeats  int
	failures []ToolFailure
}

// newToolbox prepares tools for an agent whose ToolTimeout is timeout.
func newToolbox(tools []Tool, timeout time.Duration) (*toolbox, error) {
	tb := &toolbox{byName: make(map[string]*toolEntry, len(tools))}
	for _, t := range tools {
		if err := tb.add(t, timeout); err != nil {
			return nil, err
		}
	}
	return tb, nil
}

// add prepares t for an agent whose ToolTimeout is timeout.
func (tb *toolbox) add(t Tool, timeout time.Duration) error {
	if t == nil {
		return errors.New("nil tool")
	}
	e := &toolEntry{tool: t, spec: t.Spec(), answer: isAnswerTool(t), timeout: toolTimeout(t, timeout)}
	if e.spec.Name == "" {
		return errors.New("a tool has no name")
	}
	if _, dup := tb.byName[e.spec.Name]; dup {
		return fmt.Errorf("tool %q given twice", e.spec.Name)
	}
	if e.spec.Parameters != nil && !validatesOwnArguments(t) {
		s, err := schema.Compile(e.spec.Parameters)
		if err != nil {
			return fmt.Errorf("tool %q: %w", e.spec.Name, err)
		}
		e.schema = s
	}
	tb.entries = append(tb.entries, e)
	tb.byName[e.spec.Name] = e
	tb.names = append(tb.names, e.spec.Name)
	tb.specs = append(tb.specs, e.spec)
	return nil
}

// validatesOwnArguments reports whether t's Call checks its arguments itself.
func validatesOwnArguments(t Tool) bool {
	if a, ok := t.(answerTool); ok {
		t = a.Tool
	}
	if _, ok := t.(ArgumentChecker); ok {
		return true
	}
	_, ok := t.(interface{ validatesArguments() })
	return ok
}

// lookup finds a tool by exact name, then by a normalized spelling, then
// by a close match (models misspell names in ReAct text).
func (tb *toolbox) lookup(name string) *toolEntry {
	if e, ok := tb.byName[name]; ok {
		return e
	}
	n := normalizeName(name)
	for _, e := range tb.entries {
		if normalizeName(e.spec.Name) == n {
			return e
		}
	}
	if best, ok := schema.ClosestMatch(name, tb.names, 0.85); ok {
		return tb.byName[best]
	}
	return nil
}

// normalizeName lower-cases name and turns runs of other characters than
// letters and digits into one underscore.
func normalizeName(name string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.Trim(b.String(), "_")
}

// A callResult is the outcome of one tool call.
type callResult struct {
	text   string // the observation for the model
	failed bool
	answer bool // a successful result_as_answer call
	// replayed: the interceptor served the result without running the tool.
	replayed bool
}

// call runs one tool call and reports it to em.
func (tb *toolbox) call(ctx context.Context, em emitter, at Call) callResult {
	c := *at.ToolCall
	agent, task := at.Agent, at.Task
	start := em.now()
	id := em.emit(ctx, Event{Kind: EventToolStarted, Agent: agent, Task: task, Tool: c.Name, CallID: c.ID, Arguments: c.Arguments})
	res, reason, err := tb.run(withParent(ctx, id), em, at)
	if err != nil {
		tb.mu.Lock()
		tb.failures = append(tb.failures, ToolFailure{Tool: c.Name, Reason: reason, Message: res.text, Arguments: c.Arguments})
		tb.mu.Unlock()
		em.emit(ctx, Event{Kind: EventToolError, Parent: id, Agent: agent, Task: task, Tool: c.Name, CallID: c.ID, Arguments: c.Arguments, Result: res.text, Err: err, Duration: em.since(start)})
		return res
	}
	em.emit(ctx, Event{Kind: EventToolFinished, Parent: id, Agent: agent, Task: task, Tool: c.Name, CallID: c.ID, Arguments: c.Arguments, Result: res.text, Duration: em.since(start), Replayed: res.replayed})
	return res
}

// run does the work of call: it returns the observation, and for a failure
// its reason and error. The tool itself runs through em's interceptor.
func (tb *toolbox) run(ctx context.Context, em emitter, at Call) (callResult, string, error) {
	c := *at.ToolCall
	e := tb.lookup(c.Name)
	if e == nil {
		err := fmt.Errorf("unknown tool %q", c.Name)
		return callResult{failed: true, text: fmt.Sprintf("Error: there is no tool named %q. Use one of: %s.", c.Name, strings.Join(tb.names, ", "))}, FailureUnknownTool, err
	}
	if tb.session != nil {
		if ok, reason := tb.session.AllowTool(e.spec.Name); !ok {
			return callResult{failed: true, text: "Error: " + reason}, FailureRefused, &ToolRefusedError{Tool: e.spec.Name, Reason: reason}
		}
	}
	args := c.Arguments
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		err := fmt.Errorf("arguments are not valid JSON: %s", args)
		return callResult{failed: true, text: fmt.Sprintf("Error: the arguments for %q are not valid JSON. Send one JSON object that matches the tool's schema: %s", e.spec.Name, schemaText(e.spec))}, FailureInvalidInput, err
	}
	if e.schema != nil {
		if err := schema.ValidateJSON(e.schema, args); err != nil {
			return invalidArgs(e, err)
		}
	}
	at.Name = e.spec.Name
	v, replayed, err := em.intercepted(ctx, at, func(ctx context.Context) (any, error) { return invoke(ctx, e, args) })
	if err != nil {
		var ae *ArgumentError
		var te *ToolTimeoutError
		var rf ReportedFailure
		switch {
		case errors.As(err, &ae):
			return invalidArgs(e, ae.Err)
		case errors.As(err, &te):
			return callResult{failed: true, text: fmt.Sprintf("Error: the tool %q did not finish within %s.", e.spec.Name, te.After)}, FailureTimeout, err
		case errors.As(err, &rf):
			return callResult{failed: true, text: rf.Observation()}, rf.Reason(), err
		}
		return callResult{failed: true, text: fmt.Sprintf("Error: the tool %q failed: %v", e.spec.Name, err)}, FailureToolError, err
	}
	text := resultText(v)
	key := e.spec.Name + "\x00" + canonicalJSON(args)
	tb.mu.Lock()
	if prev, ok := tb.seen[key]; ok && prev == text {
		tb.repeats++
		text += repeatedCallNote
	} else {
		if tb.seen == nil {
			tb.seen = map[string]string{}
		}
		tb.seen[key] = text
	}
	tb.mu.Unlock()
	return callResult{text: text, answer: e.answer, replayed: replayed}, "", nil
}

func invalidArgs(e *toolEntry, err error) (callResult, string, error) {
	return callResult{failed: true, text: fmt.Sprintf("Error: the arguments for %q do not match its schema: %v\nExpected arguments: %s", e.spec.Name, err, schemaText(e.spec))}, FailureInvalidInput, err
}

// invoke calls e's tool, bounded by its timeout through the context. A tool
// that ignores its context does not hold the agent up: invoke returns a
// [*ToolTimeoutError] when the time is up and leaves the tool's goroutine to
// finish on its own, its result discarded.
func invoke(ctx context.Context, e *toolEntry, args json.RawMessage) (v any, err error) {
	if e.timeout <= 0 {
		defer func() {
			if p := recover(); p != nil {
				v, err = nil, fmt.Errorf("tool panicked: %v", p)
			}
		}()
		return e.tool.Call(ctx, args)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, e.timeout, &ToolTimeoutError{Tool: e.spec.Name, After: e.timeout})
	defer cancel()
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("tool panicked: %v", p)}
			}
		}()
		v, err := e.tool.Call(ctx, args)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil {
			return nil, timedOut(ctx, r.err)
		}
		return r.v, r.err
	case <-ctx.Done():
		return nil, timedOut(ctx, ctx.Err())
	}
}

// timedOut returns the [*ToolTimeoutError] of a call whose context ran out
// of the tool's time, or err when the caller's context ended first.
func timedOut(ctx context.Context, err error) error {
	if te, ok := context.Cause(ctx).(*ToolTimeoutError); ok {
		return te
	}
	return err
}

// repeated reports whether the agent has repeated calls too often.
func (tb *toolbox) repeated() bool {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.repeats >= maxRepeats
}

// schemaText is the tool's argument schema as JSON text.
func schemaText(s llm.ToolSpec) string {
	if s.Parameters == nil {
		return "{}"
	}
	b, _ := json.Marshal(s.Parameters)
	return string(b)
}

// ObservationText returns the text an agent sees for a tool's result v:
// strings as they are, other values as JSON. A durable run records this
// text, since it is all of the result the agent uses.
func ObservationText(v any) string { return resultText(v) }

// resultText turns a tool's result into observation text: strings as they
// are, other values as JSON.
func resultText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case json.RawMessage:
		return string(x)
	case fmt.Stringer:
		return x.String()
	}
	return pyjson.Dumps(v)
}

// canonicalJSON re-encodes JSON text with sorted keys and no spaces, so that
// equal arguments compare equal.
func canonicalJSON(raw json.RawMessage) string {
	v, err := schema.DecodeJSON(raw)
	if err != nil {
		return string(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}
