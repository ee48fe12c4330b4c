package action

import (
	"context"
	"fmt"
)

// A Session is what one run of an agent keeps beyond its conversation for
// its tools, such as the skills it has loaded (package skill). An
// AgentSpec's Session function opens one per run: per RunAgent call, and
// per task (and per coworker question) in a crew. A Session's methods may
// be called from several goroutines at once (a model response's tool calls
// run concurrently).
type Session interface {
	// Start is called when the run starts, inside its
	// agent_execution_started event, so that what it reports with
	// [Report] nests under that event. agent is the agent's role and task
	// the crew task's label ("" outside a crew).
	Start(ctx context.Context, agent, task string)
	// AllowTool is asked before each call of the named tool during the
	// run. When it returns false, the call does not happen: the model is
	// told reason as the call's result, and the call is reported as a
	// tool_usage_error whose Err is a [*ToolRefusedError].
	AllowTool(name string) (ok bool, reason string)
}

// sessionKey keys the run's Session in the context of its tool calls.
type sessionKey struct{}

// SessionOf returns the Session of the agent run ctx belongs to, or nil.
// Tools call it to reach the state of the run that calls them.
func SessionOf(ctx context.Context) Session {
	s, _ := ctx.Value(sessionKey{}).(Session)
	return s
}

// A ToolRefusedError reports a tool call that the run's Session refused;
// the model was told Reason.
type ToolRefusedError struct {
	Tool   string
	Reason string
}

// Error implements error.
func (e *ToolRefusedError) Error() string {
	return fmt.Sprintf("action: tool %q refused: %s", e.Tool, e.Reason)
}

// FailureRefused is the reason of a [ToolFailure] for a call the run's
// Session refused.
const FailureRefused = "refused"
