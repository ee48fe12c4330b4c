package flow

import (
	"fmt"

	"github.com/troupe-dev/troupe/action"
)

// WithGuardrail registers a Go guardrail under a ref. A crew task names it
// as {ref: REF} in its guardrail (or in its guardrails list, beside
// CrewAI's string guardrails, which a model judges):
//
//	tasks:
//	  - description: Answer the customer.
//	    expected_output: A reply.
//	    guardrail: {ref: "app:no_personal_data"}
//
// The guardrail gets the task's output; an error rejects it and is sent
// back to the agent, which tries again (up to guardrail_max_retries).
func WithGuardrail(ref string, g action.Guardrail) Option {
	return func(e *Engine) { e.guardrails[ref] = g }
}

// taskGuardrails resolves the guardrails of t: requirement texts, Go
// functions set on a task built in Go, and refs to guardrails registered
// with WithGuardrail.
func (e *Engine) taskGuardrails(t *Task) ([]action.TaskGuardrail, error) {
	if len(t.Guardrails) == 0 {
		return nil, nil
	}
	where := "crew action: tasks"
	if t.Name != "" {
		where += "." + t.Name
	}
	out := make([]action.TaskGuardrail, 0, len(t.Guardrails))
	for i, g := range t.Guardrails {
		switch {
		case g.Func != nil:
			out = append(out, action.TaskGuardrail{Func: g.Func})
		case g.Ref != "":
			fn, ok := e.guardrails[g.Ref]
			if !ok {
				return nil, fmt.Errorf("%s: guardrails[%d]: no guardrail is registered under %q (register it with flow.WithGuardrail(%q, fn))", where, i, g.Ref, g.Ref)
			}
			out = append(out, action.TaskGuardrail{Func: fn})
		default:
			out = append(out, action.TaskGuardrail{Prompt: g.Prompt})
		}
	}
	return out, nil
}
