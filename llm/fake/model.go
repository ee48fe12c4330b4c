package fake

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/troupe-dev/troupe/internal/fakescript"
	"github.com/troupe-dev/troupe/llm"
)

// ErrUnmatched is wrapped by the error of a request no reply answers.
var ErrUnmatched = errors.New("fake: no reply matches the request")

// Model is a scripted [llm.LLM] that records every request. It is safe for
// concurrent use; replies are chosen in script order, and an entry's times
// are never exceeded however many calls race for it.
type Model struct {
	entries []*entry
	err     error // a problem in the script, reported by every call

	noFunctionCalling atomic.Bool
	noRecording       atomic.Bool
	calls             atomic.Int64
	ids               atomic.Int64

	mu       sync.Mutex
	requests []*llm.Request
}

var (
	_ llm.LLM                = (*Model)(nil)
	_ llm.CapabilityReporter = (*Model)(nil)
	_ llm.Resolver           = (*Model)(nil)
)

// New returns a model answering with the given replies. A reply that is
// invalid (a bad regular expression, both text and json, ...) makes every
// call fail with an error saying which; [Model.Err] reports it at once.
func New(replies ...Reply) *Model {
	m := &Model{entries: make([]*entry, 0, len(replies))}
	for i, r := range replies {
		e, err := compile(r)
		if err != nil {
			m.err = fmt.Errorf("fake: replies[%d].%w", i, err)
			m.entries = nil
			break
		}
		m.entries = append(m.entries, e)
	}
	return m
}

// Err returns the problem found in the script by [New], or nil.
func (m *Model) Err() error { return m.err }

// WithFunctionCalling sets whether the model supports native tool calls
// (default true) and returns m. Without them, [Model.Capabilities] says so, a
// request that carries tools fails the way providers fail ("does not support
// tools", see [llm.IsToolsUnsupported]), and a reply's single tool call is
// written as ReAct text.
func (m *Model) WithFunctionCalling(enabled bool) *Model {
	m.noFunctionCalling.Store(!enabled)
	return m
}

// WithRecording sets whether requests are recorded (default true) and
// returns m. Turn it off in benchmarks, where recording would hold every
// request in memory.
func (m *Model) WithRecording(enabled bool) *Model {
	m.noRecording.Store(!enabled)
	return m
}

// Capabilities implements [llm.CapabilityReporter].
func (m *Model) Capabilities() llm.Capabilities {
	fc := !m.noFunctionCalling.Load()
	return llm.Capabilities{ToolCalls: fc, ParallelToolCalls: fc, StructuredOutput: true, Streaming: true}
}

// Calls returns how many calls the model received (answered or not).
func (m *Model) Calls() int { return int(m.calls.Load()) }

// Requests returns copies of the recorded requests, in the order received.
func (m *Model) Requests() []*llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*llm.Request, len(m.requests))
	for i, r := range m.requests {
		out[i] = r.Clone()
	}
	return out
}

// Reset forgets the recorded requests and the calls made, restores every
// entry's times and restarts tool call ids at call_1.
func (m *Model) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = nil
	m.calls.Store(0)
	m.ids.Store(0)
	for _, e := range m.entries {
		e.Reset()
	}
}

// Generate implements [llm.LLM]: it records req and answers with the first
// entry that matches it.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	m.calls.Add(1)
	if req != nil && !m.noRecording.Load() {
		c := req.Clone()
		m.mu.Lock()
		m.requests = append(m.requests, c)
		m.mu.Unlock()
	}
	if m.err != nil {
		return nil, m.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	fc := !m.noFunctionCalling.Load()
	if !fc && len(req.Tools) > 0 {
		return nil, &llm.APIError{Provider: "fake", Model: req.Model, Status: 400,
			Message: "this model does not support tools (function_calling is false); describe the tools in the prompt instead"}
	}
	t := transcript{msgs: req.Messages}
	e := m.choose(&t)
	if e == nil {
		return nil, m.unmatched(req, &t)
	}
	if err := fakescript.Wait(ctx, e.delay); err != nil {
		return nil, err
	}
	if e.err != "" {
		return nil, &llm.APIError{Provider: "fake", Model: req.Model, Status: e.status, Message: e.err}
	}
	return m.answer(req, &t, e, fc)
}

// choose returns the first entry that matches and still has a use left,
// claiming that use, or nil.
func (m *Model) choose(t *transcript) *entry {
	for _, e := range m.entries {
		if e.Exhausted() {
			continue
		}
		if e.re != nil && !e.re.MatchString(t.text()) {
			continue
		}
		if e.Claim() {
			return e
		}
	}
	return nil
}

// unmatched builds the error for a request no entry answers.
func (m *Model) unmatched(req *llm.Request, t *transcript) error {
	hint := "add a reply whose match is found in it, or one without match" + fakescript.UsedUp(m.entries)
	return fmt.Errorf("%w %q (call %d); the transcript ends with:\n%s\n%s", ErrUnmatched, req.Model, m.calls.Load(), tail(t.text(), 300), hint)
}

// answer builds the response of entry e.
func (m *Model) answer(req *llm.Request, t *transcript, e *entry, fc bool) (*llm.Response, error) {
	resp := &llm.Response{Model: req.Model, FinishReason: llm.FinishStop}
	if resp.Model == "" {
		resp.Model = "fake"
	}
	text := e.text
	var calls []llm.ToolCall
	if len(e.calls) > 0 {
		calls = make([]llm.ToolCall, len(e.calls))
		for i, c := range e.calls {
			if c.ID == "" {
				c.ID = "call_" + strconv.FormatInt(m.ids.Add(1), 10)
			}
			c.Arguments = append([]byte(nil), c.Arguments...)
			calls[i] = c
		}
		if fc {
			resp.FinishReason = llm.FinishToolCalls
		} else {
			if len(calls) > 1 {
				return nil, fmt.Errorf("fake: a reply has %d tool calls but function_calling is false, and ReAct text carries one action at a time", len(calls))
			}
			text = reactText(text, calls[0])
			calls = nil
		}
	}
	resp.Message = llm.AssistantToolCalls(text, calls...)
	if e.finish != "" {
		resp.FinishReason = e.finish
	}
	if e.usage != nil {
		resp.Usage = *e.usage
	} else {
		resp.Usage = llm.Usage{InputTokens: tokens(t.len()), OutputTokens: tokens(e.outLen)}
	}
	resp.Usage.Requests = 1
	return resp, nil
}

// reactText writes a tool call the way a model without function calling
// asks for a tool, after the reply's text as its thought.
func reactText(thought string, c llm.ToolCall) string {
	s := "Action: " + c.Name + "\nAction Input: " + string(c.Arguments)
	if thought != "" {
		s = thought + "\n" + s
	}
	return s
}

// tokens estimates the token count of n bytes: ceil(n/4).
func tokens(n int) int64 { return int64(n+3) / 4 }

// Stream implements [llm.LLM]: it answers like Generate and yields the text
// in up to three pieces, each tool call in up to two, then the response.
func (m *Model) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		resp, err := m.Generate(ctx, req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		send := func(c llm.Chunk) bool {
			if err := ctx.Err(); err != nil {
				yield(llm.Chunk{}, err)
				return false
			}
			return yield(c, nil)
		}
		for _, piece := range split(resp.Text(), 3) {
			if !send(llm.Chunk{TextDelta: piece}) {
				return
			}
		}
		for i, c := range resp.Message.ToolCalls {
			args := split(string(c.Arguments), 2)
			first := &llm.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name}
			if len(args) > 0 {
				first.ArgumentsDelta = args[0]
			}
			if !send(llm.Chunk{ToolCallDelta: first}) {
				return
			}
			for _, a := range args[min(1, len(args)):] {
				if !send(llm.Chunk{ToolCallDelta: &llm.ToolCallDelta{Index: i, ArgumentsDelta: a}}) {
					return
				}
			}
		}
		send(llm.Chunk{Done: resp})
	}
}
