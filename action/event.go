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
	// An agent's recall from memory before its first model call; Result
	// holds the recalled memories, one a line, on completion.
	EventMemoryRetrievalStarted   EventKind = "memory_retrieval_started"
	EventMemoryRetrievalCompleted EventKind = "memory_retrieval_completed"
	EventMemoryRetrievalFailed    EventKind = "memory_retrieval_failed"
	// Agent Skills (package skill), with CrewAI's names.
	EventSkillDiscoveryStarted   EventKind = "skill_discovery_started"
	EventSkillDiscoveryCompleted EventKind = "skill_discovery_completed"
	EventSkillLoaded             EventKind = "skill_loaded"
	EventSkillLoadFailed         EventKind = "skill_load_failed"
	EventSkillActivated          EventKind = "skill_activated"
	EventSkillUsed               EventKind = "skill_used"
	// MCP servers (reported by MCP toolsets and tools, with an
	// mcp.EventDetail as Detail).
	EventMCPConnectionStarted      EventKind = "mcp_connection_started"
	EventMCPConnectionCompleted    EventKind = "mcp_connection_completed"
	EventMCPConnectionFailed       EventKind = "mcp_connection_failed"
	EventMCPToolExecutionStarted   EventKind = "mcp_tool_execution_started"
	EventMCPToolExecutionCompleted EventKind = "mcp_tool_execution_completed"
	EventMCPToolExecutionFailed    EventKind = "mcp_tool_execution_failed"
	EventMCPConfigFetchFailed      EventKind = "mcp_config_fetch_failed"
)

// An Event reports one step of an agent or crew run. Fields that do not
// apply to a kind are zero.
//
// Events form a tree: ID numbers the events of one RunAgent or RunCrew call
// from 1, and Parent is the ID of the enclosing event (an LLM call's and a
// tool call's at their agent's agent_execution_started, an agent's at its
// task_started in a crew, a finished or failed event at its started event);
// 0 means the run's root, the caller's own enclosing span.
type Event struct {
	ID     int64
	Parent int64
	Kind   EventKind
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
	// Replayed marks the llm_call_completed or tool_usage_finished event
	// of a call the host's interceptor answered from a record without
	// making it (a durable engine replaying a run): the call was made, and
	// reported, by an earlier attempt. A sink that saw that attempt drops
	// the event and its started event (its Parent).
	Replayed bool
	// Skill describes the skill of a skill_* event; nil on other events.
	Skill *SkillInfo
	// Detail holds what an event reported by a tool or toolset says beyond
	// the fields above, as a struct of the reporting package (an
	// mcp.EventDetail for MCP events); a *ModelCall on the loop's
	// llm_call_* events, nil on its other events.
	Detail any
}

// SkillInfo is what a skill event reports, beyond its agent and task
// (CrewAI's field names in parentheses).
type SkillInfo struct {
	// Name is the skill's name (skill_name); for the loader's events, the
	// catalog label the model asked for.
	Name string
	// Path is the skill's folder (skill_path), "." for an inline skill.
	Path string
	// SearchPath is the folder a discovery scanned (search_path).
	SearchPath string
	// Found names the skills a discovery found (skill_names; skills_found
	// is its length).
	Found []string
	// Level is the disclosure level (disclosure_level): 1 name and
	// description, 2 instructions, 3 instructions and the list of the
	// skill's files.
	Level int
}

// An Observer receives events. Calls are serialized per agent or crew run,
// so an observer shared by one run needs no locking of its own; one shared
// by concurrent runs must be safe for concurrent use.
type Observer func(Event)

// emitter is what the host gave an agent or crew run: it delivers events
// to an observer and a logger, one at a time, numbering them, and passes
// model and tool calls through the host's interceptor.
type emitter struct {
	mu        *sync.Mutex
	next      *int64 // the last ID given, guarded by mu
	obs       Observer
	logger    *slog.Logger
	intercept Interceptor
	round     ToolRound
	clock     Clock // nil: SystemClock
}

func newEmitter(opts *RunOptions) emitter {
	e := emitter{mu: &sync.Mutex{}, next: new(int64)}
	if opts != nil {
		e.obs, e.logger, e.intercept, e.round, e.clock = opts.Observer, opts.Logger, opts.Intercept, opts.ToolRound, opts.Clock
	}
	return e
}

// emitterKey keys, in the context of an agent or crew run, the run's
// emitter, so that its tools can report events of their own.
type emitterKey struct{}

// Report delivers ev as an event of the agent or crew run ctx belongs to,
// under the event ctx runs inside (a tool's events under its
// tool_usage_started). Tools call it to report what they do beyond the tool
// call itself; outside a run it does nothing. It returns ev's ID.
func Report(ctx context.Context, ev Event) int64 {
	em, ok := ctx.Value(emitterKey{}).(emitter)
	if !ok {
		return 0
	}
	return em.emit(ctx, ev)
}

// withEmitter returns ctx carrying em, for Report.
func withEmitter(ctx context.Context, em emitter) context.Context {
	if em.obs == nil && em.logger == nil {
		return ctx
	}
	return context.WithValue(ctx, emitterKey{}, em)
}

// parentKey keys the ID of the enclosing event in a context.
type parentKey struct{}

// withParent returns ctx marked as running inside event id.
func withParent(ctx context.Context, id int64) context.Context {
	if id == 0 {
		return ctx
	}
	return context.WithValue(ctx, parentKey{}, id)
}

// parentOf returns the ID of the event ctx runs inside, 0 at the root.
func parentOf(ctx context.Context) int64 {
	id, _ := ctx.Value(parentKey{}).(int64)
	return id
}

// emit delivers ev and returns its ID; 0 when nobody listens. An event
// without a Parent gets the one ctx runs inside.
func (e emitter) emit(ctx context.Context, ev Event) int64 {
	if e.obs == nil && e.logger == nil {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	*e.next++
	ev.ID = *e.next
	if ev.Parent == 0 {
		ev.Parent = parentOf(ctx)
	}
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
		if ev.Skill != nil {
			attrs = append(attrs, slog.String("skill", ev.Skill.Name), slog.String("skill_path", ev.Skill.Path))
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
	return ev.ID
}
