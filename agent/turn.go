package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/llm"
)

// Status says how a turn ended.
type Status string

// The Status values.
const (
	// StatusAnswered: the model answered.
	StatusAnswered Status = "answered"
	// StatusFinal: a final state was reached.
	StatusFinal Status = "final_state"
	// StatusPaused: a tool call waits for approval (see Runner.Resume).
	StatusPaused Status = "paused"
	// StatusFallback: the turn failed and the fallback message answered.
	StatusFallback Status = "fallback"
	// StatusHandedOver: the turn failed and a person should take over.
	StatusHandedOver Status = "handed_over"
)

// A Result is the outcome of a turn.
type Result struct {
	// Answer is the text for the user.
	Answer string `json:"answer"`
	Status Status `json:"status"`
	// Reason says why a turn did not end with the model's answer.
	Reason string `json:"reason,omitempty"`
	// State is the state-machine state at the end of the turn.
	State string `json:"state,omitempty"`
	// Steps counts the model calls of the turn.
	Steps int       `json:"steps"`
	Usage llm.Usage `json:"usage"`
	// Pending is the call waiting for approval when Status is paused.
	Pending *Pending `json:"pending,omitempty"`
}

// A StopError ends a turn early: the step limit, the timeout, a repeated
// call, or a model that kept failing. With on_error fail it is the turn's
// error; otherwise its Reason is in the Result.
type StopError struct {
	Agent  string
	Reason string
	Err    error
}

// Error implements error.
func (e *StopError) Error() string { return fmt.Sprintf("agent %q: %s", e.Agent, e.Reason) }

// Unwrap returns the cause, if any.
func (e *StopError) Unwrap() error { return e.Err }

// Turn adds input to the session's conversation and plays the agent until
// it answers, a final state is reached, a call needs approval or the turn
// stops; s is updated in place.
func (r *Runner) Turn(ctx context.Context, s *Session, input string) (*Result, error) {
	if s.Pending != nil {
		return nil, fmt.Errorf("agent %q: session %s waits for an approval of %s; resume it first", r.def.Name, s.ID, s.Pending.Call.Name)
	}
	s.Messages = append(s.Messages, llm.User(input))
	t := r.newTurn(s, 0)
	return t.finish(ctx, t.loop)
}

// A Decision answers a call waiting for approval.
type Decision struct {
	Approve bool
	// Reason is told to the model when the call is rejected.
	Reason string
}

// Resume continues a paused turn with a person's decision on the pending
// call: an approved call runs, a rejected one goes back to the model as
// its result.
func (r *Runner) Resume(ctx context.Context, s *Session, d Decision) (*Result, error) {
	p := s.Pending
	if p == nil {
		return nil, fmt.Errorf("agent %q: session %s has no call waiting for approval", r.def.Name, s.ID)
	}
	s.Pending = nil
	t := r.newTurn(s, p.Step)
	return t.finish(ctx, func(ctx context.Context) (*Result, error) {
		if d.Approve {
			t.approved = p.Call.ID
			t.observe(Step{Kind: "approval", Tool: p.Call.Name, Result: "approved"})
		} else {
			text := "A person rejected this call"
			if d.Reason != "" {
				text += ": " + d.Reason
			}
			t.observe(Step{Kind: "approval", Tool: p.Call.Name, Result: "rejected", Error: d.Reason})
			t.result(p.Call, text)
			t.approved = ""
			return t.continueWith(ctx, p.Rest)
		}
		return t.continueWith(ctx, append([]llm.ToolCall{p.Call}, p.Rest...))
	})
}

// continueWith runs the calls left of a model reply, then the loop.
func (t *turn) continueWith(ctx context.Context, calls []llm.ToolCall) (*Result, error) {
	if res := t.runCalls(ctx, calls); res != nil {
		return res, nil
	}
	if t.stop != nil {
		return nil, t.stop
	}
	return t.loop(ctx)
}

// turn is one turn in progress.
type turn struct {
	*Runner
	s     *Session
	steps int
	// usage is what the turn spent, hand-offs included; usageMu guards it
	// against hand-offs running concurrently.
	usageMu sync.Mutex
	usage   llm.Usage
	// approved is the id of the call a person approved, run without asking.
	approved string
	// last is the latest tool call, to catch repeats.
	last, prev string
	// closing is set once a final state is reached: the model is asked for
	// its closing words without tools.
	closing bool
	// native is false for models without native tool calls, which use the
	// ReAct text protocol.
	native bool
	stop   *StopError
}

func (r *Runner) newTurn(s *Session, steps int) *turn {
	if s.Calls == nil {
		s.Calls = map[string]int{}
	}
	return &turn{Runner: r, s: s, steps: steps, native: llm.SupportsToolCalls(r.model)}
}

func (t *turn) observe(st Step) {
	st.Agent, st.Session, st.State = t.def.Name, t.s.ID, t.s.State
	if st.Step == 0 {
		st.Step = t.steps
	}
	t.Runner.observe(st)
}

func (t *turn) addUsage(u llm.Usage) {
	t.usageMu.Lock()
	defer t.usageMu.Unlock()
	t.usage.Add(u)
}

// finish runs play under the turn's timeout and applies the error policy
// to a turn that stopped early.
func (t *turn) finish(ctx context.Context, play func(context.Context) (*Result, error)) (*Result, error) {
	if t.def.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.def.Timeout)
		defer cancel()
	}
	res, err := play(ctx)
	if err == nil {
		res.Steps, res.Usage, res.State = t.steps, t.usage, t.s.State
		return res, nil
	}
	var stop *StopError
	if !errors.As(err, &stop) {
		if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) && t.def.Timeout > 0 {
			stop = &StopError{Agent: t.def.Name, Reason: fmt.Sprintf("the turn took longer than its timeout of %s", t.def.Timeout), Err: err}
		} else {
			return nil, err
		}
	}
	res = &Result{Reason: stop.Reason, Steps: t.steps, Usage: t.usage, State: t.s.State, Answer: t.def.ErrorPolicy.FallbackMessage}
	switch t.def.ErrorPolicy.OnError {
	case OnErrorFallback:
		res.Status = StatusFallback
	case OnErrorNotifyHuman:
		res.Status = StatusHandedOver
	default:
		return nil, stop
	}
	if res.Answer != "" {
		// The conversation shows what the user was told.
		t.s.Messages = append(t.s.Messages, llm.Assistant(res.Answer))
	}
	return res, nil
}

func (t *turn) stopf(err error, format string, args ...any) *StopError {
	return &StopError{Agent: t.def.Name, Reason: fmt.Sprintf(format, args...), Err: err}
}

// loop calls the model until it answers.
func (t *turn) loop(ctx context.Context) (*Result, error) {
	for {
		if t.steps >= t.def.MaxSteps && !t.closing {
			return nil, t.stopf(nil, "the agent used its %d steps without answering", t.def.MaxSteps)
		}
		resp, err := t.generate(ctx)
		if err != nil {
			return nil, err
		}
		calls, final := t.calls(resp)
		if t.closing || len(calls) == 0 {
			text := final
			t.s.Messages = append(t.s.Messages, llm.Assistant(text))
			if t.closing {
				return &Result{Answer: text, Status: StatusFinal}, nil
			}
			return &Result{Answer: text, Status: StatusAnswered}, nil
		}
		if t.native {
			t.s.Messages = append(t.s.Messages, resp.Message)
		} else {
			t.s.Messages = append(t.s.Messages, llm.Assistant(resp.Text()))
		}
		if res := t.runCalls(ctx, calls); res != nil {
			return res, nil
		}
		if t.stop != nil {
			return nil, t.stop
		}
	}
}

// generate makes one model call of the turn, retrying failures and empty
// replies up to max_retries, the latter at a lowered temperature.
func (t *turn) generate(ctx context.Context) (*llm.Response, error) {
	t.steps++
	temp := t.def.Model.Temperature
	for attempt := 0; ; attempt++ {
		req, err := t.request(ctx, temp)
		if err != nil {
			return nil, err
		}
		start := t.now()
		resp, err := t.generateOnce(ctx, req)
		if err == nil && resp != nil {
			t.addUsage(resp.Usage)
			u := resp.Usage
			t.observe(Step{Kind: "model", LatencyMS: t.now().Sub(start).Milliseconds(), Tokens: &u})
			if err = t.usable(resp); err == nil {
				return resp, nil
			}
		}
		if err == nil {
			err = errors.New("the model returned no response")
		}
		t.observe(Step{Kind: "model", LatencyMS: t.now().Sub(start).Milliseconds(), Error: err.Error()})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if attempt >= t.def.ErrorPolicy.MaxRetries {
			return nil, t.stopf(err, "the model failed %d times: %v", attempt+1, err)
		}
		if resp != nil {
			// A reply the loop cannot use goes back to the model, raw, at
			// a lowered temperature.
			t.s.Messages = append(t.s.Messages, llm.Assistant(resp.Text()), llm.User(fmt.Sprintf("Your previous reply could not be used (%v). Raw reply: %q. Answer again: call a tool or give your answer as text.", err, resp.Text())))
			temp = lower(temp)
		}
		t.observe(Step{Kind: "retry", Error: err.Error()})
	}
}

// generateOnce makes one model call, through the interceptor if any.
func (t *turn) generateOnce(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	out, err := t.intercepted(ctx, action.Call{Kind: action.CallModel, Agent: t.def.Name, Name: t.def.Model.ModelName, Turn: t.steps, Request: req},
		func(ctx context.Context) (any, error) { return t.model.Generate(ctx, req) })
	if err != nil {
		return nil, err
	}
	resp, ok := out.(*llm.Response)
	if !ok {
		return nil, fmt.Errorf("agent %q: an interceptor returned %T for a model call; want *llm.Response", t.def.Name, out)
	}
	return resp, nil
}

// intercepted runs next through the runner's interceptor, if any.
func (t *turn) intercepted(ctx context.Context, c action.Call, next func(context.Context) (any, error)) (any, error) {
	if t.intercept == nil {
		return next(ctx)
	}
	return t.intercept(ctx, c, next)
}

// calls returns the tool calls of a reply, or its final text: native tool
// calls, or one call in ReAct text.
func (t *turn) calls(resp *llm.Response) ([]llm.ToolCall, string) {
	if t.native {
		return resp.ToolCalls(), resp.Text()
	}
	step := action.ParseReAct(resp.Text())
	if step.IsFinal || t.closing {
		return nil, step.Final
	}
	return []llm.ToolCall{{ID: fmt.Sprintf("react_%d", t.steps), Name: step.Tool, Arguments: step.Args}}, ""
}

// usable says why a reply cannot be used: empty, or (ReAct) naming an
// action without its input.
func (t *turn) usable(resp *llm.Response) error {
	text := resp.Text()
	if strings.TrimSpace(text) == "" && len(resp.ToolCalls()) == 0 {
		return errors.New("the model returned an empty reply")
	}
	if !t.native && !strings.Contains(text, "Final Answer:") && strings.Contains(text, "Action:") && !strings.Contains(text, "Action Input:") {
		return errors.New("the reply names an Action without an Action Input; write both, or a Final Answer")
	}
	return nil
}

// lower halves a temperature; unset becomes 0.
func lower(t *float64) *float64 {
	v := 0.0
	if t != nil {
		v = *t / 2
	}
	return &v
}

// request builds the next model request: the rendered system prompt, the
// conversation, and the tools of the current state.
func (t *turn) request(ctx context.Context, temp *float64) (*llm.Request, error) {
	sys, err := t.prompt.Render(ctx, &cel.Vars{Extra: map[string]any{varInputs: inputsOf(t.s)}})
	if err != nil {
		return nil, fmt.Errorf("agent %q: system_prompt: %w", t.def.Name, err)
	}
	text, _ := sys.(string)
	if t.s.State != "" {
		text += fmt.Sprintf("\n\nCurrent state: %s.", t.s.State)
	}
	tools := t.offered()
	if !t.native && len(tools) > 0 {
		if t.closing {
			text += "\n\nDo not use any tool now: reply with your Final Answer."
		} else {
			text += action.ReActInstructions(tools)
		}
	}
	req := &llm.Request{
		Messages:    append([]llm.Message{llm.System(text)}, t.s.Messages...),
		Temperature: temp,
		MaxTokens:   t.def.Model.MaxTokens,
	}
	switch {
	case t.native:
		req.Tools = tools
		if t.closing && len(tools) > 0 {
			req.ToolChoice = llm.ToolChoiceNone
		}
	case len(tools) > 0:
		req.Stop = []string{action.ReActStop}
	}
	return req, nil
}

func inputsOf(s *Session) map[string]any {
	if s.Inputs == nil {
		return map[string]any{}
	}
	return s.Inputs
}

// Truncated is the marker that ends a truncated tool result.
const Truncated = "[... truncated: %d more characters]"

// truncate cuts text to limit characters, marking the cut.
func truncate(text string, limit int) string {
	if limit <= 0 {
		limit = DefaultMaxResultChars
	}
	runes := []rune(text)
	if len(runes) <= limit {
		return text
	}
	return string(runes[:limit]) + "\n" + fmt.Sprintf(Truncated, len(runes)-limit)
}

// repeatReason is the Reason of a turn ended by repeat detection.
func repeatReason(tool string) string {
	return fmt.Sprintf("the agent called %s twice in a row with the same arguments and got the same result; the turn was ended to avoid a loop", tool)
}
