package flow

import (
	"fmt"
	"strings"

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

// taskGuardrails returns the guardrails of t: its guardrails list when it
// has one, else its guardrail (CrewAI clears the single one when the list
// is given).
func (e *Engine) taskGuardrails(t *Task) ([]action.TaskGuardrail, error) {
	where := "crew action: tasks"
	if t.Name != "" {
		where += "." + t.Name
	}
	if list, ok := t.Extra["guardrails"].([]any); ok && len(list) > 0 {
		out := make([]action.TaskGuardrail, 0, len(list))
		for i, item := range list {
			g, err := e.taskGuardrail(item, fmt.Sprintf("%s.guardrails[%d]", where, i))
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	}
	item, ok := t.Extra["guardrail"]
	if !ok || item == nil {
		return nil, nil
	}
	g, err := e.taskGuardrail(item, where+".guardrail")
	if err != nil {
		return nil, err
	}
	return []action.TaskGuardrail{g}, nil
}

// taskGuardrail resolves one guardrail entry: a requirement text, or
// {ref: REF} naming a guardrail registered with WithGuardrail.
func (e *Engine) taskGuardrail(item any, where string) (action.TaskGuardrail, error) {
	switch v := item.(type) {
	case string:
		return action.TaskGuardrail{Prompt: v}, nil
	case map[string]any:
		ref, ok := v["ref"].(string)
		if !ok || len(v) != 1 || strings.TrimSpace(ref) == "" {
			break
		}
		g, ok := e.guardrails[ref]
		if !ok {
			return action.TaskGuardrail{}, fmt.Errorf("%s: no guardrail is registered under %q (register it with flow.WithGuardrail(%q, fn))", where, ref, ref)
		}
		return action.TaskGuardrail{Func: g}, nil
	}
	return action.TaskGuardrail{}, fmt.Errorf("%s: a guardrail is a requirement text or {ref: NAME} naming a Go guardrail registered with flow.WithGuardrail, not %s", where, typeName(item))
}
