// Package eventlog writes the events of flow runs as JSON lines, one
// [Record] a line, and reads them back, so that a run from CI or production
// can be read afterwards (troupe run --events FILE, troupe trace FILE).
//
// The field names of [Record] are stable: new fields may be added, none is
// renamed or removed.
package eventlog

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
)

// A Record is one event of a run as one JSON line. Fields that do not apply
// to an event's kind are left out.
type Record struct {
	// Seq numbers the events of a run from 1; Parent is the Seq of the
	// enclosing event (a finished or failed event's is its started event),
	// 0 for the run's first event.
	Seq    int64 `json:"seq"`
	Parent int64 `json:"parent,omitempty"`
	// Kind is the event's kind, a flow.EventKind such as
	// "method_execution_started".
	Kind   string    `json:"kind"`
	RunID  string    `json:"run_id,omitempty"`
	Flow   string    `json:"flow"`
	Method string    `json:"method,omitempty"`
	Time   time.Time `json:"time"`
	// DurationMS is the step's duration in milliseconds, on finished and
	// failed events.
	DurationMS float64 `json:"duration_ms,omitempty"`
	Agent      string  `json:"agent,omitempty"`
	Task       string  `json:"task,omitempty"`
	Model      string  `json:"model,omitempty"`
	Tool       string  `json:"tool,omitempty"`
	CallID     string  `json:"call_id,omitempty"`
	// Arguments are a tool call's arguments, as the model wrote them.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Text is streamed text (llm_stream_chunk) or a tool's result.
	Text string `json:"text,omitempty"`
	// Usage is an LLM call's or an agent's usage, and the run's on
	// flow_finished.
	Usage *llm.Usage `json:"usage,omitempty"`
	// Error is the failure's message on failed events.
	Error string `json:"error,omitempty"`
	// Inputs (flow_started) and Output (method and flow finished) as JSON.
	Inputs json.RawMessage `json:"inputs,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	// Outcome is the event a router emitted (method_execution_finished).
	Outcome string `json:"outcome,omitempty"`
	// Skill names the skill of skill_* events.
	Skill string `json:"skill,omitempty"`
	// Detail is what tools and toolsets report beyond these fields (the
	// MCP event detail of mcp_* events) as JSON.
	Detail json.RawMessage `json:"detail,omitempty"`
}

// FromEvent returns ev as a record. Values JSON cannot hold (NaN, channels)
// are written as their printed form in a string.
func FromEvent(ev flow.Event) Record {
	r := Record{Seq: ev.Seq, Parent: ev.Parent, Kind: string(ev.Kind), RunID: ev.RunID, Flow: ev.Flow,
		Method: ev.Method, Time: ev.Time.UTC(), Agent: ev.Agent, Task: ev.Task, Model: ev.Model, Tool: ev.Tool,
		CallID: ev.CallID, Arguments: validJSON(ev.Arguments), Text: ev.Text, Outcome: ev.Outcome}
	if ev.Duration > 0 {
		r.DurationMS = float64(ev.Duration) / float64(time.Millisecond)
	}
	usage := ev.Usage
	if ev.Result != nil {
		usage = ev.Result.Usage
	}
	if !usage.IsZero() {
		r.Usage = &usage
	}
	if ev.Err != nil {
		r.Error = ev.Err.Error()
	}
	if ev.Inputs != nil {
		r.Inputs = toJSON(ev.Inputs)
	}
	if ev.Output != nil {
		r.Output = toJSON(ev.Output)
	}
	if ev.Skill != nil {
		r.Skill = ev.Skill.Name
	}
	if ev.Detail != nil {
		r.Detail = toJSON(ev.Detail)
	}
	return r
}

// Duration returns DurationMS as a duration.
func (r Record) Duration() time.Duration {
	return time.Duration(r.DurationMS * float64(time.Millisecond))
}

// toJSON returns v as JSON: agent and crew outputs as their map, values
// encoding/json refuses as their printed form.
func toJSON(v any) json.RawMessage {
	if m, ok := v.(interface{ Map() map[string]any }); ok {
		v = m.Map()
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprint(v))
	}
	return b
}

// validJSON returns raw, or raw as a JSON string when it is not valid JSON
// (a model may write broken tool arguments).
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}
