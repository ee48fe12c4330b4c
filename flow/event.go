package flow

import (
	"encoding/json"
	"time"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
)

// EventKind names what happened. The names follow CrewAI's event names.
type EventKind string

// Event kinds.
const (
	FlowStarted    EventKind = "flow_started"
	FlowFinished   EventKind = "flow_finished"
	FlowFailed     EventKind = "flow_failed"
	FlowPaused     EventKind = "flow_paused"
	MethodStarted  EventKind = "method_execution_started"
	MethodFinished EventKind = "method_execution_finished"
	MethodFailed   EventKind = "method_execution_failed"
	MethodPaused   EventKind = "method_execution_paused"
	AgentStarted   EventKind = "agent_execution_started"
	AgentFinished  EventKind = "agent_execution_completed"
	AgentFailed    EventKind = "agent_execution_error"
	LLMStarted     EventKind = "llm_call_started"
	LLMFinished    EventKind = "llm_call_completed"
	LLMFailed      EventKind = "llm_call_failed"
	LLMStream      EventKind = "llm_stream_chunk"
	ToolStarted    EventKind = "tool_usage_started"
	ToolFinished   EventKind = "tool_usage_finished"
	ToolFailed     EventKind = "tool_usage_error"
	// Crew tasks and their guardrails.
	TaskStarted        EventKind = "task_started"
	TaskCompleted      EventKind = "task_completed"
	GuardrailStarted   EventKind = "guardrail_started"
	GuardrailCompleted EventKind = "guardrail_completed"
	// An agent's recall from the flow's memory.
	MemoryRetrievalStarted   EventKind = "memory_retrieval_started"
	MemoryRetrievalCompleted EventKind = "memory_retrieval_completed"
	MemoryRetrievalFailed    EventKind = "memory_retrieval_failed"
	// Agent Skills: discovery when an agent's first run starts, skill_used
	// for its always-on skills at every run, activation when it loads one.
	SkillDiscoveryStarted   EventKind = "skill_discovery_started"
	SkillDiscoveryCompleted EventKind = "skill_discovery_completed"
	SkillLoaded             EventKind = "skill_loaded"
	SkillLoadFailed         EventKind = "skill_load_failed"
	SkillActivated          EventKind = "skill_activated"
	SkillUsed               EventKind = "skill_used"
)

// An Event is one step of a run. Events of a run are numbered in order and
// point at their parent (a method's events at the flow's start, an LLM
// call's at its method's start), so they map onto trace spans.
type Event struct {
	Seq    int64
	Parent int64
	Kind   EventKind
	RunID  string
	Flow   string
	Method string
	Time   time.Time
	// Duration is set on finished and failed events.
	Duration time.Duration
	// Inputs is set on flow_started.
	Inputs map[string]any
	// Output is set on method and flow finished events; Outcome on a
	// router's method_execution_finished, the event it emitted.
	Output  any
	Outcome string
	// Err is set on failed events.
	Err error
	// Agent, Model, Tool, Arguments, Text and Usage describe agent, LLM and
	// tool events.
	Agent     string
	Model     string
	Tool      string
	Arguments json.RawMessage
	// Task names a crew task (task_* events); CallID is a tool call's id.
	Task   string
	CallID string
	Text   string
	Usage  llm.Usage
	// Replayed marks the finished event of a model or tool call that an
	// interceptor answered from a record without making it (a durable
	// engine replaying the run; see [action.Event]'s Replayed): a sink
	// that saw the earlier attempt drops it and its Parent.
	Replayed bool
	// Result is set on flow_finished.
	Result *Result
	// Skill describes the skill of a skill_* event.
	Skill *action.SkillInfo
	// Detail holds what events reported by tools and toolsets say beyond
	// the fields above: an mcp.EventDetail for the MCP* kinds.
	Detail any
}
