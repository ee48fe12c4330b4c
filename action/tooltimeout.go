package action

import (
	"context"
	"fmt"
	"time"
)

// DefaultToolTimeout bounds each tool call of an agent when neither the tool
// (a [TimedTool]) nor the agent ([AgentSpec.ToolTimeout]) sets a bound.
const DefaultToolTimeout = 5 * time.Minute

// A TimedTool is a [Tool] that says how long each of its calls may take in
// an agent loop, whatever the agent's [AgentSpec.ToolTimeout].
//
// Tools wrapped by [ResultAsAnswer] keep their timeout; a wrapper of another
// kind must implement CallTimeout itself to pass it on.
type TimedTool interface {
	Tool
	// CallTimeout bounds one call: 0 leaves the agent's bound, a negative
	// value means no bound.
	CallTimeout() time.Duration
}

// A ToolTimeoutError reports a tool call of an agent that did not finish
// within its timeout. The model is told so as the call's observation, and
// the agent goes on; the error is the Err of the tool_error event. It
// matches context.DeadlineExceeded with errors.Is.
type ToolTimeoutError struct {
	Tool  string
	After time.Duration
}

// Error implements error.
func (e *ToolTimeoutError) Error() string {
	return fmt.Sprintf("action: tool %q: no result within %s (the tool call timeout)", e.Tool, e.After)
}

// Unwrap returns context.DeadlineExceeded.
func (e *ToolTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// toolTimeout returns how long one call of t may take in an agent whose
// ToolTimeout is agent; 0 means no bound.
func toolTimeout(t Tool, agent time.Duration) time.Duration {
	d := agent
	if own := declaredTimeout(t); own != 0 {
		d = own
	}
	switch {
	case d < 0:
		return 0
	case d == 0:
		return DefaultToolTimeout
	}
	return d
}

// declaredTimeout returns the CallTimeout of t, looking through
// [ResultAsAnswer], or 0.
func declaredTimeout(t Tool) time.Duration {
	for {
		switch x := t.(type) {
		case TimedTool:
			return x.CallTimeout()
		case answerTool:
			t = x.Tool
		default:
			return 0
		}
	}
}
