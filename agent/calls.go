package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/internal/diag"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/schema"
)

// outcome is what one tool call gave.
type outcome struct {
	text   string
	ran    bool // the tool ran and succeeded
	args   map[string]any
	result any
}

// runCalls answers the calls of one model reply, in order. It returns a
// Result when the turn pauses for an approval, and sets t.closing or
// t.stop when the turn must end.
func (t *turn) runCalls(ctx context.Context, calls []llm.ToolCall) *Result {
	outs := make([]outcome, len(calls))
	if t.parallel(calls) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i, c := range calls {
			wg.Go(func() { outs[i] = t.call(ctx, c, i+1, &mu) })
		}
		wg.Wait()
		for i, c := range calls {
			t.answer(ctx, c, outs[i])
		}
		return nil
	}
	for i, c := range calls {
		if t.closing || t.stop != nil {
			t.result(c, "Not run: the turn has ended.")
			continue
		}
		if t.needsApproval(c) {
			t.s.Pending = &Pending{Call: c, Rest: slices.Clone(calls[i+1:]), Step: t.steps}
			t.observe(Step{Kind: "approval", Tool: c.Name, Args: argsOf(c.Arguments), Result: "requested"})
			return &Result{Status: StatusPaused, Pending: t.s.Pending, Reason: fmt.Sprintf("%s needs a person's approval", c.Name)}
		}
		var out outcome
		if c.Name == TransitionTool && t.def.StateMachine != nil {
			out = outcome{text: t.transition(c)}
		} else {
			out = t.call(ctx, c, i+1, nil)
		}
		t.answer(ctx, c, out)
	}
	return nil
}

// parallel says whether the calls may run concurrently: several, and
// none of them asks for approval or depends on state-machine order.
func (t *turn) parallel(calls []llm.ToolCall) bool {
	if len(calls) < 2 || t.def.StateMachine != nil {
		return false
	}
	for _, c := range calls {
		if b := t.tools[c.Name]; b != nil && b.ref.Approval == ApprovalRequired {
			return false
		}
	}
	return true
}

// answer records a call's outcome: its result message, state-machine
// events and repeat detection.
func (t *turn) answer(ctx context.Context, c llm.ToolCall, out outcome) {
	if out.ran {
		out.text += t.raise(ctx, c.Name, out)
		key := c.Name + "\x00" + canonical(out.args) + "\x00" + out.text
		t.prev, t.last = t.last, key
		if t.def.RepeatDetection && t.prev == t.last {
			t.stop = t.stopf(nil, "%s", repeatReason(c.Name))
		}
	} else {
		t.prev, t.last = t.last, ""
	}
	t.result(c, out.text)
}

// result appends the result of call c to the conversation: a tool message
// with native tool calls, an Observation for the ReAct text protocol.
func (t *turn) result(c llm.ToolCall, text string) {
	if t.native {
		t.s.Messages = append(t.s.Messages, llm.ToolResult(c.ID, c.Name, text))
		return
	}
	t.s.Messages = append(t.s.Messages, llm.User("Observation: "+text))
}

func canonical(v map[string]any) string {
	b, _ := json.Marshal(v) // map keys are sorted
	return string(b)
}

func argsOf(raw json.RawMessage) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// offered is the tools the model may call now: the current state's (all
// the agent's without a state machine) and transition when the state has
// events.
func (t *turn) offered() []llm.ToolSpec {
	var out []llm.ToolSpec
	st := t.current()
	for _, name := range t.order {
		if st == nil || st.Tools == nil || slices.Contains(st.Tools, name) {
			out = append(out, t.tools[name].spec)
		}
	}
	if st != nil && len(st.On) > 0 {
		events := make([]any, len(st.On))
		for i, o := range st.On {
			events[i] = o.Event
		}
		out = append(out, llm.ToolSpec{
			Name:        TransitionTool,
			Description: "Move the conversation to its next stage by raising one of the events allowed now.",
			Parameters: map[string]any{
				"type":       "object",
				"properties": map[string]any{"event": map[string]any{"type": "string", "enum": events}},
				"required":   []any{"event"},
			},
		})
	}
	return out
}

// current returns the current state, or nil without a state machine.
func (t *turn) current() *State {
	if t.def.StateMachine == nil {
		return nil
	}
	return t.def.StateMachine.state(t.s.State)
}

// check finds the tool of call c and checks the call's arguments and
// limits, returning the problem to tell the model ("" when none).
func (t *turn) check(c llm.ToolCall) (*boundTool, map[string]any, string) {
	b := t.tools[c.Name]
	if b == nil {
		msg := fmt.Sprintf("there is no tool %q", c.Name)
		if s := diag.Closest(c.Name, t.order); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, nil, fmt.Sprintf("%s; the tools are: %s", msg, strings.Join(t.order, ", "))
	}
	if st := t.current(); st != nil && st.Tools != nil && !slices.Contains(st.Tools, c.Name) {
		return nil, nil, fmt.Sprintf("tool %q is not available in state %q", c.Name, st.Name)
	}
	args, problem := checkArgs(b, c.Arguments)
	if problem != "" {
		return nil, nil, problem
	}
	return b, args, ""
}

// call runs one tool call (the pos-th of its model reply), or explains to
// the model why it did not run. mu guards the session's counters when calls run concurrently.
func (t *turn) call(ctx context.Context, c llm.ToolCall, pos int, mu *sync.Mutex) outcome {
	fail := func(format string, args ...any) outcome {
		msg := "Error: " + fmt.Sprintf(format, args...)
		t.observe(Step{Kind: "tool", Tool: c.Name, Args: argsOf(c.Arguments), Error: msg})
		return outcome{text: msg}
	}
	b, args, problem := t.check(c)
	if problem != "" {
		return fail("%s", problem)
	}
	if mu != nil {
		mu.Lock()
	}
	n := t.s.Calls[c.Name]
	over := b.ref.MaxCalls > 0 && n >= b.ref.MaxCalls
	if !over {
		t.s.Calls[c.Name] = n + 1
	}
	if mu != nil {
		mu.Unlock()
	}
	if over {
		return fail("tool %q may be called at most %d times in a conversation", c.Name, b.ref.MaxCalls)
	}
	callCtx := ctx
	if b.timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, b.timeout)
		defer cancel()
	}
	raw, _ := json.Marshal(args)
	callCtx = context.WithValue(callCtx, callerKey{}, caller{inputs: t.s.Inputs, usage: t.addUsage})
	start := t.now()
	res, err := t.intercepted(callCtx, action.Call{Kind: action.CallTool, Agent: t.def.Name, Name: c.Name, Turn: t.steps, Position: pos, ToolCall: &c},
		func(ctx context.Context) (any, error) { return b.tool.Call(ctx, raw) })
	latency := t.now().Sub(start).Milliseconds()
	if err != nil {
		msg := fmt.Sprintf("Error: the tool failed: %v", err)
		if ctx.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) {
			msg = fmt.Sprintf("Error: the tool did not answer within %s", b.timeout)
		}
		t.observe(Step{Kind: "tool", Tool: c.Name, Args: args, Error: msg, LatencyMS: latency})
		return outcome{text: msg}
	}
	text, ok := res.(string)
	if !ok {
		data, err := json.Marshal(res)
		if err != nil {
			return fail("the tool's result cannot be written as JSON: %v", err)
		}
		text = string(data)
	}
	text = truncate(text, t.def.MaxResultChars)
	t.observe(Step{Kind: "tool", Tool: c.Name, Args: args, Result: text, LatencyMS: latency})
	return outcome{text: text, ran: true, args: args, result: jsonData(res)}
}

// needsApproval reports whether call c must wait for a person: its tool
// asks for approval, the call would run (no problem to report first), and
// no person approved it yet.
func (t *turn) needsApproval(c llm.ToolCall) bool {
	b, _, problem := t.check(c)
	if problem != "" || b.ref.Approval != ApprovalRequired || c.ID == t.approved {
		return false
	}
	return b.ref.MaxCalls == 0 || t.s.Calls[c.Name] < b.ref.MaxCalls
}

// jsonData turns a tool's result into JSON data for event conditions.
func jsonData(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	out, err := schema.DecodeJSON(data)
	if err != nil {
		return nil
	}
	return out
}

// checkArgs decodes a call's arguments and checks them against the
// tool's parameters, returning the problem to tell the model.
func checkArgs(b *boundTool, raw json.RawMessage) (map[string]any, string) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = json.RawMessage("{}")
	}
	v, err := schema.DecodeJSON(raw)
	if err != nil {
		return nil, fmt.Sprintf("the arguments are not valid JSON (%v); send a JSON object", err)
	}
	args, ok := v.(map[string]any)
	if !ok {
		return nil, "the arguments must be a JSON object"
	}
	if b.schema == nil {
		return args, ""
	}
	if missing := b.schema.Missing(args); len(missing) > 0 {
		return nil, "missing parameter " + strings.Join(missing, ", ")
	}
	if err := b.schema.Validate(args); err != nil {
		return nil, fmt.Sprintf("invalid arguments: %v", err)
	}
	return args, ""
}

// transition handles a call of the built-in transition tool.
func (t *turn) transition(c llm.ToolCall) string {
	st := t.current()
	args := argsOf(c.Arguments)
	event, _ := args["event"].(string)
	target := ""
	if st != nil {
		target = st.target(event)
	}
	if target == "" {
		allowed := make([]string, 0)
		if st != nil {
			for _, o := range st.On {
				allowed = append(allowed, o.Event)
			}
		}
		msg := fmt.Sprintf("Refused: event %q is not allowed in state %q (allowed: %s).", event, t.s.State, strings.Join(allowed, ", "))
		t.observe(Step{Kind: "transition", Tool: TransitionTool, Args: args, Error: msg})
		return msg
	}
	return t.move(event, target, args)
}

// move enters target on event and says so.
func (t *turn) move(event, target string, args map[string]any) string {
	from := t.s.State
	t.s.State = target
	t.observe(Step{Kind: "transition", Tool: TransitionTool, Args: args, Result: from + " -> " + target + " on " + event})
	if s := t.def.StateMachine.state(target); s != nil && s.Final {
		t.closing = true
	}
	return fmt.Sprintf("The conversation moved from state %q to %q (event %s).", from, target, event)
}

// raise applies the first event of the current state whose condition
// holds after a tool call, and returns the note for the model ("" when no
// event is raised).
func (t *turn) raise(ctx context.Context, tool string, out outcome) string {
	st := t.current()
	if st == nil {
		return ""
	}
	vars := &cel.Vars{Extra: map[string]any{varTool: tool, varArgs: out.args, varResult: out.result}}
	for _, o := range st.On {
		p := t.events[o.Event]
		if p == nil {
			continue
		}
		v, err := p.Eval(ctx, vars)
		if err != nil || v != true {
			continue
		}
		return "\n" + t.move(o.Event, o.Target, map[string]any{"event": o.Event, "tool": tool})
	}
	return ""
}
