package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// Process is how a crew runs its tasks.
type Process string

// The crew processes.
const (
	// ProcessSequential runs the tasks in order, each by its own agent.
	ProcessSequential Process = "sequential"
	// ProcessHierarchical has a manager agent run every task, delegating
	// to the crew's agents through tools.
	ProcessHierarchical Process = "hierarchical"
)

// DefaultGuardrailMaxRetries is how many times a task is retried after its
// guardrail rejects the output, as in CrewAI.
const DefaultGuardrailMaxRetries = 3

// contextSeparator joins earlier task outputs in a task's context.
const contextSeparator = "\n\n----------\n\n"

// A CrewSpec describes a crew: its agents, its tasks and how they run.
type CrewSpec struct {
	Name    string
	Process Process // "" means ProcessSequential
	// Agents are the crew's agents; each has a unique Name tasks refer to.
	Agents []*AgentSpec
	Tasks  []*TaskSpec
	// Manager is the manager of a hierarchical crew; without it one is
	// built with ManagerModel. It must have no tools and not be one of
	// Agents.
	Manager      *AgentSpec
	ManagerModel llm.LLM
	// ManagerModelName names ManagerModel in events and for interceptors.
	ManagerModelName string
	// MaxRPM limits the requests per minute of agents without their own
	// limit; 0 means none.
	MaxRPM int
}

// A TaskSpec is one task of a crew.
type TaskSpec struct {
	Name           string
	Description    string
	ExpectedOutput string
	// Agent names the agent that does the task (in a hierarchical crew,
	// the coworker the manager delegates to; optional there).
	Agent string
	// Context names earlier tasks whose outputs the agent gets. Nil means
	// all earlier tasks; an empty, non-nil slice means none.
	Context []string
	// ResponseSchema is the JSON Schema of a structured output.
	ResponseSchema map[string]any
	// Tools, when not nil, replace the agent's tools for this task.
	Tools []Tool
	// Guardrails check the output, in order; the first to reject it sends
	// the agent back to work with the rejection, and every guardrail checks
	// the new output again. A model guardrail is judged by GuardrailModel,
	// else by the agent's model.
	Guardrails     []TaskGuardrail
	GuardrailModel llm.LLM
	// GuardrailMaxRetries bounds the retries after a rejection; nil means
	// DefaultGuardrailMaxRetries.
	GuardrailMaxRetries *int
}

// A TaskGuardrail is one check of a task's output: a Go function, or a
// requirement (Prompt) that a model judges, as CrewAI's string guardrails.
type TaskGuardrail struct {
	Func   Guardrail
	Prompt string
}

// A CrewError reports a crew definition that cannot run. Its message
// carries CrewAI's text, such as "crew action: agents.researcher: missing
// required field 'goal'".
type CrewError struct {
	Crew string
	Msg  string
	Err  error
}

// Error implements error.
func (e *CrewError) Error() string {
	if e.Err != nil {
		return "action: crew action: " + e.Msg + ": " + e.Err.Error()
	}
	return "action: crew action: " + e.Msg
}

// Unwrap returns the cause, if any.
func (e *CrewError) Unwrap() error { return e.Err }

// RunCrew fills the crew's {name} placeholders from inputs and runs its
// tasks, sequentially or under a manager, and returns every task's output.
func RunCrew(ctx context.Context, spec *CrewSpec, inputs map[string]any, opts *RunOptions) (*CrewOutput, error) {
	if spec == nil {
		return nil, errors.New("action: nil crew spec")
	}
	c, err := prepareCrew(spec, inputs, newEmitter(opts))
	if err != nil {
		return nil, err
	}
	c.stream = opts != nil && opts.Stream
	out := &CrewOutput{UsageByAgent: map[string]llm.Usage{}}
	for i, t := range c.tasks {
		to, err := c.runTask(ctx, i, t, c.context(t, out.TasksOutput))
		if err != nil {
			return nil, err
		}
		out.TasksOutput = append(out.TasksOutput, to)
		out.TokenUsage.Add(to.Usage)
	}
	for k, u := range c.byAgent {
		out.UsageByAgent[k] = u
	}
	out.finish()
	return out, nil
}

// crewRun is one run of a crew, with its interpolated copies of the specs.
type crewRun struct {
	spec    *CrewSpec
	agents  []*AgentSpec
	byName  map[string]*AgentSpec
	tasks   []*TaskSpec
	manager *AgentSpec
	limits  map[*AgentSpec]*rateLimiter
	em      emitter
	stream  bool
	byAgent usageSums
}

// prepareCrew checks spec and renders its placeholders.
func prepareCrew(spec *CrewSpec, inputs map[string]any, em emitter) (*crewRun, error) {
	cerr := func(format string, args ...any) error {
		return &CrewError{Crew: spec.Name, Msg: fmt.Sprintf(format, args...)}
	}
	if len(spec.Agents) == 0 && spec.Manager == nil {
		return nil, cerr("crew action requires inline agent definitions")
	}
	if len(spec.Tasks) == 0 {
		return nil, cerr("crew action requires a non-empty tasks list")
	}
	c := &crewRun{spec: spec, byName: map[string]*AgentSpec{}, limits: map[*AgentSpec]*rateLimiter{}, byAgent: usageSums{}, em: em}
	for i, a := range spec.Agents {
		if a == nil {
			return nil, cerr("agents[%d] is nil", i)
		}
		name := a.Name
		if name == "" {
			name = a.Role
		}
		if _, dup := c.byName[name]; dup {
			return nil, cerr("agents.%s: defined twice", name)
		}
		cp, err := c.agent(a, "agents."+name, inputs)
		if err != nil {
			return nil, err
		}
		c.agents = append(c.agents, cp)
		c.byName[name] = cp
	}
	hier := spec.Process == ProcessHierarchical
	switch spec.Process {
	case "", ProcessSequential, ProcessHierarchical:
	default:
		return nil, cerr("unknown process %q (want sequential or hierarchical)", spec.Process)
	}
	seen := map[string]bool{}
	for i, t := range spec.Tasks {
		if t == nil {
			return nil, cerr("tasks[%d] is nil", i)
		}
		where := fmt.Sprintf("tasks[%d]", i)
		if t.Name != "" {
			where = "tasks." + t.Name
		}
		switch {
		case t.Agent == "" && !hier:
			return nil, cerr("%s: has no agent (a sequential crew needs one per task)", where)
		case t.Agent != "" && c.byName[t.Agent] == nil:
			return nil, cerr("%s: references agent '%s' which does not match a loaded agent definition", where, t.Agent)
		}
		for _, ref := range t.Context {
			if !seen[ref] {
				return nil, cerr("%s: has context reference '%s' but that task has not been defined yet", where, ref)
			}
		}
		if t.Name != "" {
			seen[t.Name] = true
		}
		cp := *t
		var err error
		if cp.Description, err = Interpolate(t.Description, inputs); err != nil {
			return nil, interpolationError(spec.Name, where, "description", err)
		}
		if cp.ExpectedOutput, err = Interpolate(t.ExpectedOutput, inputs); err != nil {
			return nil, interpolationError(spec.Name, where, "expected_output", err)
		}
		c.tasks = append(c.tasks, &cp)
	}
	if hier {
		m, err := c.buildManager(inputs)
		if err != nil {
			return nil, err
		}
		c.manager = m
	}
	return c, nil
}

// agent checks a and returns a copy with its placeholders filled.
func (c *crewRun) agent(a *AgentSpec, where string, inputs map[string]any) (*AgentSpec, error) {
	for _, f := range [...]struct{ name, v string }{{"role", a.Role}, {"goal", a.Goal}, {"backstory", a.Backstory}} {
		if strings.TrimSpace(f.v) == "" {
			return nil, &CrewError{Crew: c.spec.Name, Msg: fmt.Sprintf("%s: missing required field '%s'", where, f.name)}
		}
	}
	if a.Model == nil {
		return nil, &CrewError{Crew: c.spec.Name, Msg: where + ": no model"}
	}
	cp := *a
	var err error
	for _, f := range [...]*string{&cp.Role, &cp.Goal, &cp.Backstory} {
		if *f, err = Interpolate(*f, inputs); err != nil {
			return nil, &CrewError{Crew: c.spec.Name, Msg: where, Err: err}
		}
	}
	rpm := cp.MaxRPM
	if rpm == 0 {
		rpm = c.spec.MaxRPM
	}
	if rpm > 0 {
		c.limits[&cp] = newRateLimiter(rpm, time.Minute, c.em.clock)
	}
	return &cp, nil
}

// interpolationError words a task placeholder error as CrewAI does.
func interpolationError(crew, where, field string, err error) error {
	var me *MissingInputError
	if errors.As(err, &me) {
		return &CrewError{Crew: crew, Msg: fmt.Sprintf("%s: Missing required template variable '%s' in %s", where, me.Key, field)}
	}
	return &CrewError{Crew: crew, Msg: fmt.Sprintf("%s: Error interpolating %s", where, field), Err: err}
}

// context returns the context text of task t given the outputs so far.
func (c *crewRun) context(t *TaskSpec, done []*TaskOutput) string {
	var parts []string
	if t.Context == nil {
		for _, o := range done {
			parts = append(parts, o.Raw)
		}
	} else {
		for _, ref := range t.Context {
			for _, o := range done {
				if o.Name == ref {
					parts = append(parts, o.Raw)
				}
			}
		}
	}
	return strings.Join(parts, contextSeparator)
}
