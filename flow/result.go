package flow

import (
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/store"
)

// Result is what a run produced.
type Result struct {
	// RunID identifies the run in events and logs.
	RunID string
	// Output is the output of the last method to complete, as the method
	// returned it; nil when no method ran.
	Output any
	// Outputs holds the latest output of each completed method, as JSON data.
	Outputs map[string]any
	// State is the final state.
	State map[string]any
	// Trace names the completed methods in completion order.
	Trace []string
	// Usage sums the model usage of every LLM call of the run.
	Usage llm.Usage
	// Pending is set when the run paused for human feedback; continue it
	// with Engine.Resume and the run's id.
	Pending *store.PendingFeedback
}
