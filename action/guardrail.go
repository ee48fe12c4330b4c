package action

import (
	"context"
	"fmt"
)

// A Guardrail checks a task's output before the crew accepts it. It returns
// nil to accept; an error rejects the output, and its message is fed back to
// the agent, which tries again. A guardrail may change out (its Raw, say)
// to accept a corrected output.
type Guardrail func(ctx context.Context, out *TaskOutput) error

// A GuardrailError reports a task whose output was still rejected after
// every retry.
type GuardrailError struct {
	Task    string
	Retries int
	Last    string // the last rejection
}

// Error implements error; it carries CrewAI's wording.
func (e *GuardrailError) Error() string {
	return fmt.Sprintf("action: task %q failed guardrail validation after %d retries. Last error: %s", e.Task, e.Retries, e.Last)
}

// guardrailVerdict is the JSON Schema of a model guardrail's answer.
var guardrailVerdict = map[string]any{
	"type":     "object",
	"required": []any{"valid"},
	"properties": map[string]any{
		"valid":    map[string]any{"type": "boolean", "description": "whether the result meets the requirement"},
		"feedback": map[string]any{"type": []any{"string", "null"}, "description": "what is wrong, when it does not"},
	},
}

// checkGuardrails runs t's guardrails on out, in order, and returns the
// first rejection message, or "" when every guardrail accepts out. An error
// means a guardrail could not run at all.
func (c *crewRun) checkGuardrails(ctx context.Context, t *TaskSpec, exec *AgentSpec, label string, out *TaskOutput, sink *usageSink) (string, error) {
	for _, g := range t.Guardrails {
		if g.Func == nil && g.Prompt == "" {
			continue
		}
		start := c.em.now()
		id := c.em.emit(ctx, Event{Kind: EventGuardrailStarted, Agent: exec.Role, Task: label})
		msg, err := c.guardrailMessage(withParent(ctx, id), g, t, exec, label, out, sink)
		ev := Event{Kind: EventGuardrailCompleted, Parent: id, Agent: exec.Role, Task: label, Result: msg, Err: err, Duration: c.em.since(start)}
		if msg != "" && err == nil {
			ev.Err = fmt.Errorf("rejected: %s", msg)
		}
		c.em.emit(ctx, ev)
		if msg != "" || err != nil {
			return msg, err
		}
	}
	return "", nil
}

func (c *crewRun) guardrailMessage(ctx context.Context, g TaskGuardrail, t *TaskSpec, exec *AgentSpec, label string, out *TaskOutput, sink *usageSink) (string, error) {
	if g.Func != nil {
		if err := g.Func(ctx, out); err != nil {
			return err.Error(), nil
		}
		return "", nil
	}
	model := t.GuardrailModel
	if model == nil {
		model = exec.Model
	}
	judge := &AgentSpec{Role: "Guardrail Agent", Goal: "Check whether a task result meets a requirement", Backstory: "You review work strictly and point out exactly what is wrong, without fixing it.", Model: model}
	if model == exec.Model {
		judge.ModelName = exec.ModelName
	}
	input := "Check whether this task result meets the requirement.\n\nTask result:\n" + out.Raw +
		"\n\nRequirement:\n" + g.Prompt +
		"\n\nSet valid to true when it does. When it does not, set valid to false and say in feedback what is wrong; do not propose a corrected result."
	v, err := runAgent(ctx, judge, AgentTask{Input: input, ResponseSchema: guardrailVerdict, Name: label}, c.em, c.stream, nil)
	if err != nil {
		return "", err
	}
	sink.add(judge.Role, v.Usage)
	m, _ := v.Pydantic.(map[string]any)
	if ok, _ := m["valid"].(bool); ok {
		return "", nil
	}
	fb, _ := m["feedback"].(string)
	if fb == "" {
		fb = "the result does not meet the requirement: " + g.Prompt
	}
	return fb, nil
}
