package action

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/troupe-dev/troupe/llm"
)

// usageSums adds up usage by agent role. It is written only through a
// usageSink, under the sink's lock, and tasks run one at a time.
type usageSums map[string]llm.Usage

// usageSink collects the usage of one task: the executing agent's, and
// that of coworkers and guardrails running inside it, possibly
// concurrently.
type usageSink struct {
	mu      sync.Mutex
	total   llm.Usage
	byAgent usageSums
}

func (s *usageSink) add(role string, u llm.Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total.Add(u)
	v := s.byAgent[role]
	v.Add(u)
	s.byAgent[role] = v
}

// runTask runs task i with its context, retrying while a guardrail
// rejects the output.
func (c *crewRun) runTask(ctx context.Context, i int, t *TaskSpec, taskContext string) (*TaskOutput, error) {
	label := t.Name
	if label == "" {
		label = summary(t.Description)
	}
	exec, tools, err := c.executor(t)
	if err != nil {
		return nil, err
	}
	sink := &usageSink{byAgent: c.byAgent}
	lim := c.limits[exec]
	if dt := c.delegationTools(t, exec, sink); len(dt) > 0 || t.Tools != nil {
		cp := *exec
		cp.Tools = append(slices.Clip(tools), dt...)
		exec = &cp
	}
	retries := DefaultGuardrailMaxRetries
	if t.GuardrailMaxRetries != nil {
		retries = max(*t.GuardrailMaxRetries, 0)
	}
	start := c.em.now()
	id := c.em.emit(ctx, Event{Kind: EventTaskStarted, Agent: exec.Role, Task: label})
	taskCtx := withParent(ctx, id)
	feedback := ""
	for attempt := 0; ; attempt++ {
		at := AgentTask{Input: t.Description, ExpectedOutput: t.ExpectedOutput, Context: taskContext, ResponseSchema: t.ResponseSchema, Name: label}
		if feedback != "" {
			at.Context = joinNonEmpty(taskContext, feedback)
		}
		ao, err := runAgent(taskCtx, exec, at, c.em, c.stream, lim)
		if err != nil {
			return nil, fmt.Errorf("action: crew %q: task %q: %w", c.spec.Name, label, err)
		}
		sink.add(exec.Role, ao.Usage)
		out := newTaskOutput(t, exec.Role, ao)
		msg, err := c.checkGuardrails(taskCtx, t, exec, label, out, sink)
		if err != nil {
			return nil, fmt.Errorf("action: crew %q: task %q: guardrail: %w", c.spec.Name, label, err)
		}
		if msg == "" {
			out.Usage = sink.total
			c.em.emit(ctx, Event{Kind: EventTaskCompleted, Parent: id, Agent: exec.Role, Task: label, Result: out.Raw, Usage: out.Usage, Duration: c.em.since(start)})
			return out, nil
		}
		if attempt >= retries {
			return nil, &GuardrailError{Task: label, Retries: retries, Last: msg}
		}
		feedback = fmt.Sprintf("Your previous answer to this task was rejected: %s\n\nPrevious answer:\n%s\n\nAnswer the task again, fixing that problem.", msg, out.Raw)
	}
}

// executor returns the agent that runs t and the tools it gets before any
// delegation tools (nil: keep its own).
func (c *crewRun) executor(t *TaskSpec) (*AgentSpec, []Tool, error) {
	if c.manager != nil {
		return c.manager, t.Tools, nil
	}
	if c.byName[t.Agent] == nil {
		return nil, nil, &CrewError{Crew: c.spec.Name, Msg: fmt.Sprintf("task %q has no agent", t.Name)}
	}
	a := c.byName[t.Agent]
	tools := a.Tools
	if t.Tools != nil {
		tools = t.Tools
	}
	return a, tools, nil
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + contextSeparator + b
}
