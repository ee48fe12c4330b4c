package agent

import (
	"time"

	"github.com/troupe-dev/troupe/internal/diag"
)

// SchemaID is the optional value of a file's top-level schema key.
const SchemaID = "troupe.agent/v1"

// A Definition is one agent, as loaded from a file (extends resolved) or
// built in Go.
type Definition struct {
	// Name identifies the agent in events and sessions: ^[a-z][a-z0-9_]*$.
	Name        string
	Description string
	// SystemPrompt is the system message; ${...} CEL templates read inputs.
	SystemPrompt string
	Model        Model
	// Tools are the tools the agent may call, by registry name.
	Tools []ToolRef
	// MaxSteps bounds the model calls of one turn; at least 1.
	MaxSteps int
	// Timeout bounds a whole turn; 0: none. On expiry the error policy
	// applies.
	Timeout time.Duration
	// ToolTimeout bounds each tool call whose ToolRef sets none; 0: none.
	ToolTimeout time.Duration
	ErrorPolicy ErrorPolicy
	// RepeatDetection ends a turn when the same tool is called with the
	// same arguments and gives the same result twice in a row. On unless
	// the file says repeat_detection: false.
	RepeatDetection bool
	// MaxResultChars is the size (in characters) above which a tool result
	// is truncated before the model sees it; 0 means DefaultMaxResultChars.
	MaxResultChars int
	// StateMachine, when set, decides which tools are offered and when a
	// turn ends.
	StateMachine *StateMachine
	// Handoffs are other agent files this agent may hand a task to, as
	// written (relative to File).
	Handoffs []string

	// File is where the definition was loaded from ("" when built in Go).
	File string
	// Warnings are the warning diagnostics of loading.
	Warnings Diagnostics

	// handoffs are the loaded Handoffs, in order.
	handoffs []*Definition

	// pos locates paths (agent.tools[0].name, ...) in their source file.
	pos map[string]place
}

// DefaultMaxResultChars is the default MaxResultChars.
const DefaultMaxResultChars = 16000

// Model says which model the agent thinks with.
type Model struct {
	// ModelName is a model string as in flows, such as openai/gpt-4o-mini.
	ModelName string
	// APIType is "", chat_completions, responses or messages.
	APIType string
	// Temperature is passed to the model when set.
	Temperature *float64
	// MaxTokens bounds each reply; 0: the provider's default.
	MaxTokens int
}

// Approval values of a ToolRef.
const (
	ApprovalNone     = "none"
	ApprovalRequired = "required"
)

// A ToolRef names a registry tool and its settings for this agent.
type ToolRef struct {
	Name string
	// Approval is "" (none) or ApprovalRequired: a person approves each
	// call before it happens.
	Approval string
	// Timeout bounds each call; 0: the agent's ToolTimeout.
	Timeout time.Duration
	// MaxCalls bounds the calls in one session; 0: no bound.
	MaxCalls int
	// Parameters, when set, are the argument names the file expects the
	// tool to take; validation checks them against the registered tool.
	Parameters []string
}

// OnError says what a turn does when the model keeps failing or the turn
// runs out of time.
type OnError string

// The OnError values.
const (
	// OnErrorFail ends the turn with the error.
	OnErrorFail OnError = "fail"
	// OnErrorFallback answers FallbackMessage instead.
	OnErrorFallback OnError = "fallback"
	// OnErrorNotifyHuman answers FallbackMessage (if any) and marks the
	// result as handed over to a person.
	OnErrorNotifyHuman OnError = "notify_human"
)

// ErrorPolicy is the agent's declared reaction to failures.
type ErrorPolicy struct {
	// MaxRetries is how many times a failed model call or an unparseable
	// reply is retried within a turn.
	MaxRetries int
	// OnError is "" (fail) or one of the OnError values.
	OnError         OnError
	FallbackMessage string
}

// A StateMachine restricts tools by state and ends turns in final states.
type StateMachine struct {
	Initial string
	// States in file order.
	States []State
	// Events in file order.
	Events []Event
}

// A State is one state of a StateMachine.
type State struct {
	Name string
	// Tools are the tools offered in the state; nil: all the agent's tools.
	Tools []string
	// On maps events to target states, in file order.
	On []Transition
	// Final ends the turn when the state is reached.
	Final bool
}

// A Transition moves to Target when Event is raised.
type Transition struct {
	Event  string
	Target string
}

// An Event is raised when its Condition (CEL over tool, args and the
// result of the latest call) holds after a tool call, or when the model names it through the
// built-in transition tool. An empty Condition means the transition tool
// only.
type Event struct {
	Name      string
	Condition string
}

// state returns the named state, or nil.
func (m *StateMachine) state(name string) *State {
	for i := range m.States {
		if m.States[i].Name == name {
			return &m.States[i]
		}
	}
	return nil
}

// event returns the named event, or nil.
func (m *StateMachine) event(name string) *Event {
	for i := range m.Events {
		if m.Events[i].Name == name {
			return &m.Events[i]
		}
	}
	return nil
}

// target returns the state event leads to from state s, or "".
func (s *State) target(event string) string {
	for _, t := range s.On {
		if t.Event == event {
			return t.Target
		}
	}
	return ""
}

// Diagnostic is one problem found in an agent file, with its place.
type Diagnostic = diag.Diagnostic

// Diagnostics is every problem found in an agent file. As an error it
// stands for a file that did not load: at least one is an error.
type Diagnostics []Diagnostic

// Error lists the diagnostics, one per line.
func (ds Diagnostics) Error() string { return diag.Error("agent", ds) }

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool { return diag.HasErrors(ds) }

// Errors returns the error diagnostics.
func (ds Diagnostics) Errors() Diagnostics { return diag.Filter(ds, diag.SeverityError) }

// Warnings returns the warning diagnostics.
func (ds Diagnostics) Warnings() Diagnostics { return diag.Filter(ds, diag.SeverityWarning) }
