package action

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// EventKind names what an [Event] reports. The values are the flow event
// names they map to.
type EventKind string

// The kinds of events agents and crews report.
const (
	EventAgentStarted       EventKind = "agent_execution_started"
	EventAgentCompleted     EventKind = "agent_execution_completed"
	EventAgentError         EventKind = "agent_execution_error"
	EventLLMStarted         EventKind = "llm_call_started"
	EventLLMCompleted       EventKind = "llm_call_completed"
	EventLLMFailed          EventKind = "llm_call_failed"
	EventLLMChunk           EventKind = "llm_stream_chunk"
	EventToolStarted        EventKind = "tool_usage_started"
	EventToolFinished       EventKind = "tool_usage_finished"
	EventToolError          EventKind = "tool_usage_error"
	EventTaskStarted        EventKind = "task_started"
	EventTaskCompleted      EventKind = "task_completed"
	EventGuardrailStarted   EventKind = "guardrail_started"
	EventGuardrailCompleted EventKind = "guardrail_completed"
)

// An Event reports one step of an agent or crew run. Fields that do not
// apply to a kind are zero.
type Event struct {
	Kind EventKind
	// Agent is the role of the agent; Task the name (or description) of the
	// crew task, when there is one.
	Agent string
	Task  string
	// Model is the model that answered an LLM call, when known.
	Model string
	// Tool, CallID and Arguments describe a tool call; Result is its
	// observation text on tool_usage_finished.
	Tool      string
	CallID    string
	Arguments json.RawMessage
	Result    string
	// Err is the failure of *_error, *_failed and failed guardrail events.
	Err error
	// Usage is the usage of one LLM call (llm_call_completed) or of a whole
	// agent run (agent_execution_completed).
	Usage llm.Usage
	// Duration is the latency of a completed step.
	Duration time.Duration
	// TextDelta is a piece of streamed text (llm_stream_chunk).
	TextDelta string
	// Iteration counts the agent loop's LLM rounds from 0.
	Iteration int
}

// An Observer receives events. Calls are serialized per agent or crew run,
// so an observer shared by one run needs no locking of its own; one shared
// by concurrent runs must be safe for concurrent use.
type Observer func(Event)

// emitter delivers events to an observer and a logger, one at a time.
type emitter struct {
	mu     *sync.Mutex
	obs    Observer
	logger *slog.Logger
}

func newEmitter(opts *RunOptions) emitter {
	e := emitter{mu: &sync.Mutex{}}
	if opts != nil {
		e.obs, e.logger = opts.Observer, opts.Logger
	}
	return e
}

// emit delivers ev.
func (e emitter) emit(ctx context.Context, ev Event) {
	if e.obs == nil && e.logger == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.obs != nil {
		e.obs(ev)
	}
	if e.logger != nil && ev.Kind != EventLLMChunk {
		level := slog.LevelDebug
		if ev.Err != nil {
			level = slog.LevelWarn
		}
		attrs := []slog.Attr{slog.String("agent", ev.Agent)}
		if ev.Task != "" {
			attrs = append(attrs, slog.String("task", ev.Task))
		}
		if ev.Model != "" {
			attrs = append(attrs, slog.String("model", ev.Model))
		}
		if ev.Tool != "" {
			attrs = append(attrs, slog.String("tool", ev.Tool), slog.String("arguments", string(ev.Arguments)))
		}
		if ev.Duration > 0 {
			attrs = append(attrs, slog.Duration("duration", ev.Duration))
		}
		if !ev.Usage.IsZero() {
			attrs = append(attrs, slog.Int64("input_tokens", ev.Usage.InputTokens), slog.Int64("output_tokens", ev.Usage.OutputTokens))
		}
		if ev.Err != nil {
			attrs = append(attrs, slog.String("error", ev.Err.Error()))
		}
		e.logger.LogAttrs(ctx, level, "action: "+string(ev.Kind), attrs...)
	}
}
