package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/internal/jsondata"
	"github.com/troupe-dev/troupe/llm"
)

// runReport is what run and resume print with --json.
type runReport struct {
	Result  any            `json:"result"`
	Outputs map[string]any `json:"outputs"`
	State   map[string]any `json:"state"`
	Trace   []string       `json:"trace"`
	Usage   llm.Usage      `json:"usage"`
	// Warnings are the definition's warnings, [] when it has none: with
	// --json they are here instead of on stderr.
	Warnings flow.Diagnostics `json:"warnings"`
	// FlowID and Pending are set when the run paused for feedback.
	FlowID  string `json:"flow_id,omitempty"`
	Pending any    `json:"pending,omitempty"`
}

// newRunReport is the report of res. Numbers JSON cannot hold are spelled
// as jsonSafe does.
func newRunReport(def *flow.Definition, res *flow.Result) *runReport {
	warnings := def.Warnings
	if warnings == nil {
		warnings = flow.Diagnostics{}
	}
	outputs, _ := jsonSafe(res.Outputs).(map[string]any)
	state, _ := jsonSafe(res.State).(map[string]any)
	return &runReport{Result: jsonSafe(res.Output), Outputs: outputs, State: state,
		Trace: res.Trace, Usage: res.Usage, Warnings: warnings}
}

func (r *runReport) write(w io.Writer) error {
	if err := json.NewEncoder(w).Encode(r); err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	return nil
}

// jsonSafe returns v as JSON can hold it: NaN, +Inf and -Inf, which JSON
// numbers cannot be, become the strings "NaN", "Infinity" and "-Infinity"
// (the spellings of Python's json.dumps and of JavaScript, quoted so that
// every JSON parser reads them). Values with a Map method (agent and crew
// outputs) are written as that map. v itself is not changed.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int, int64:
		return v
	case float64:
		return finite(x)
	case float32:
		return finite(float64(x))
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, it := range x {
			out[k] = jsonSafe(it)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = jsonSafe(it)
		}
		return out
	case interface{ Map() map[string]any }:
		return jsonSafe(x.Map())
	}
	// Other Go values go through their JSON data form when they have one.
	if d, err := jsondata.Clone(v); err == nil {
		return jsonSafe(d)
	}
	return v
}

// finite returns f, or its spelling as a string when JSON cannot hold it.
func finite(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// formatResult prints a result as CrewAI's CLI does: its raw text when it
// has one, else JSON.
func formatResult(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	b, err := json.Marshal(jsonSafe(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
