package action

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// Names of the coworker tools (CrewAI's "Delegate work to coworker" and
// "Ask question to coworker", spelled as valid function names).
const (
	DelegateToolName = "delegate_work_to_coworker"
	AskToolName      = "ask_question_to_coworker"
)

// The default manager of a hierarchical crew.
const (
	managerRole      = "Crew Manager"
	managerGoal      = "Get every task done as well as possible by the right members of the team."
	managerBackstory = "You are an experienced manager. You know what each member of your team is good at, you hand them work with everything they need to know, and you check what they deliver before you accept it."
	coworkerExpected = "Your best answer to your coworker's request, using the context they shared."
)

// buildManager returns the manager of a hierarchical crew.
func (c *crewRun) buildManager(inputs map[string]any) (*AgentSpec, error) {
	s := c.spec
	if s.Manager == nil {
		if s.ManagerModel == nil {
			return nil, &CrewError{Crew: s.Name, Msg: "Attribute `manager_llm` or `manager_agent` is required when using hierarchical process."}
		}
		return &AgentSpec{Role: managerRole, Goal: managerGoal, Backstory: managerBackstory, Model: s.ManagerModel,
			ModelName: s.ManagerModelName, AllowDelegation: true}, nil
	}
	for _, a := range s.Agents {
		if a == s.Manager {
			return nil, &CrewError{Crew: s.Name, Msg: "the manager agent must not be one of the crew's agents"}
		}
	}
	if len(s.Manager.Tools) > 0 {
		return nil, &CrewError{Crew: s.Name, Msg: "Manager agent should not have tools"}
	}
	m := *s.Manager
	if m.Role == "" {
		m.Role = managerRole
	}
	if m.Goal == "" {
		m.Goal = managerGoal
	}
	if m.Backstory == "" {
		m.Backstory = managerBackstory
	}
	if m.Model == nil {
		m.Model, m.ModelName = s.ManagerModel, s.ManagerModelName
	}
	if m.Model == nil {
		return nil, &CrewError{Crew: s.Name, Msg: "manager agent: no model"}
	}
	if m.MaxRPM > 0 || s.MaxRPM > 0 {
		c.limits[&m] = newRateLimiter(max(m.MaxRPM, s.MaxRPM), time.Minute, c.em.clock)
	}
	return &m, nil
}

// delegationTools returns the coworker tools of the agent running t: in a
// hierarchical crew the manager's, over the task's agent (or every agent);
// in a sequential crew those of an agent allowed to delegate, over the
// other agents.
func (c *crewRun) delegationTools(t *TaskSpec, exec *AgentSpec, sink *usageSink) []Tool {
	var coworkers []*AgentSpec
	switch {
	case c.manager != nil && t.Agent != "":
		coworkers = []*AgentSpec{c.byName[t.Agent]}
	case c.manager != nil:
		coworkers = c.agents
	case exec.AllowDelegation && len(c.agents) > 1:
		for _, a := range c.agents {
			if a != exec {
				coworkers = append(coworkers, a)
			}
		}
	}
	if len(coworkers) == 0 {
		return nil
	}
	roles := make([]string, len(coworkers))
	for i, a := range coworkers {
		roles[i] = a.Role
	}
	list := strings.Join(roles, ", ")
	d := &coworkerTool{crew: c, coworkers: coworkers, sink: sink, label: t.Name, field: "task"}
	q := &coworkerTool{crew: c, coworkers: coworkers, sink: sink, label: t.Name, field: "question"}
	d.spec = llm.ToolSpec{Name: DelegateToolName, Parameters: coworkerSchema("task", "The task to hand over"),
		Description: "Hand a task to one of these coworkers: " + list + ". Give the coworker, the task and all the context they need: they know nothing about your work, so explain everything instead of referring to it."}
	q.spec = llm.ToolSpec{Name: AskToolName, Parameters: coworkerSchema("question", "The question to ask"),
		Description: "Ask one of these coworkers a question: " + list + ". Give the coworker, the question and all the context they need: they know nothing about your work, so explain everything instead of referring to it."}
	return []Tool{d, q}
}

func coworkerSchema(field, desc string) map[string]any {
	return map[string]any{
		"type":     "object",
		"required": []any{field, "coworker"},
		"properties": map[string]any{
			field:      map[string]any{"type": "string", "description": desc},
			"context":  map[string]any{"type": "string", "description": "Everything the coworker needs to know"},
			"coworker": map[string]any{"type": "string", "description": "The role of the coworker"},
		},
	}
}

// coworkerTool runs a task or question by a coworker agent.
type coworkerTool struct {
	crew      *crewRun
	coworkers []*AgentSpec
	sink      *usageSink
	spec      llm.ToolSpec
	label     string
	field     string // "task" or "question"
}

// Spec implements Tool.
func (t *coworkerTool) Spec() llm.ToolSpec { return t.spec }

// Call implements Tool.
func (t *coworkerTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, &ArgumentError{Tool: t.spec.Name, Err: err}
	}
	work, _ := args[t.field].(string)
	extra, _ := args["context"].(string)
	name, _ := args["coworker"].(string)
	if name == "" {
		name, _ = args["co_worker"].(string)
	}
	cw := t.find(name)
	if cw == nil {
		roles := make([]string, len(t.coworkers))
		for i, a := range t.coworkers {
			roles[i] = "- " + a.Role
		}
		return nil, fmt.Errorf("coworker %q not found, it must be one of the following options:\n%s", name, strings.Join(roles, "\n"))
	}
	c := t.crew
	out, err := runAgent(ctx, cw, AgentTask{Input: work, ExpectedOutput: coworkerExpected, Context: extra, Name: t.label}, c.em, c.stream, c.limits[cw])
	if err != nil {
		return nil, fmt.Errorf("coworker %q failed: %w", cw.Role, err)
	}
	t.sink.add(cw.Role, out.Usage)
	return out.Raw, nil
}

// find matches a coworker by role or name, ignoring case, quotes and
// spacing.
func (t *coworkerTool) find(name string) *AgentSpec {
	key := normalizeRole(name)
	for _, a := range t.coworkers {
		if normalizeRole(a.Role) == key || (a.Name != "" && normalizeRole(a.Name) == key) {
			return a
		}
	}
	return nil
}

func normalizeRole(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, `"`, "")), " "))
}
