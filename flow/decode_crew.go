package flow

import (
	"fmt"
	"strings"
)

// agentKeys are the keys Troupe reads from an agent definition; every other
// key is kept in Agent.Extra.
var agentKeys = []string{"role", "goal", "backstory", "from_repository", "settings", "llm",
	"tools", "allow_delegation", "max_iter", "max_rpm", "max_execution_time", "response_schema", "skills", "mcps"}

// agent decodes an inline agent; action is set for an agent action's with
// block, which also takes input and response_format.
func (d *decoder) agent(path string, n *node, name string, action bool) *Agent {
	what := "an agent"
	if action {
		what = "agent action with"
	}
	if !d.isMap(path, n, what) {
		return nil
	}
	keys := agentKeys
	if action {
		keys = append(append([]string(nil), agentKeys...), "input", "response_format")
	}
	f := d.fields(path, n, extraAllow, keys...)
	d.warnUnknownKeys(path, n, agentBlock)
	a := &Agent{Name: name}
	a.Role = d.optStr(join(path, "role"), f["role"])
	a.Goal = d.optStr(join(path, "goal"), f["goal"])
	a.Backstory = d.optStr(join(path, "backstory"), f["backstory"])
	a.FromRepository = d.optStr(join(path, "from_repository"), f["from_repository"])
	if v := f["settings"]; v != nil && !v.isNull() {
		if v.kind != mapNode {
			d.errorf(join(path, "settings"), "agent_settings", "agent.settings must be a mapping")
		} else {
			a.Settings = d.anyMap(join(path, "settings"), v, "agent.settings")
			d.warnUnknownKeys(join(path, "settings"), v, agentBlock)
		}
	}
	if v := f["llm"]; v != nil {
		a.LLM = d.llm(join(path, "llm"), v)
	}
	d.warnUnknownLLMKeys(join(path, "function_calling_llm"), f["function_calling_llm"])
	a.Tools = d.tools(join(path, "tools"), f["tools"])
	a.MCPs = d.agentMCPs(path, f["mcps"], f["settings"])
	a.AllowDelegation = d.optBool(join(path, "allow_delegation"), f["allow_delegation"])
	a.MaxIter = d.optInt(join(path, "max_iter"), f["max_iter"])
	a.MaxRPM = d.optInt(join(path, "max_rpm"), f["max_rpm"])
	a.MaxExecTime = d.optInt(join(path, "max_execution_time"), f["max_execution_time"])
	a.ResponseSchema = d.anyMap(join(path, "response_schema"), f["response_schema"], "response_schema")
	a.Skills = d.skills(join(path, "skills"), f["skills"])
	if action {
		if v, ok := f["input"]; !ok {
			d.errorf(join(path, "input"), "missing", "Field required [type=missing]: an agent action needs input, the task text (a ${...} template)")
		} else if _, isStr := v.value.(string); isStr && v.kind == scalarNode {
			a.Input = d.celText(join(path, "input"), v)
		} else {
			d.errorf(join(path, "input"), "agent_input_type", "agent.input must be a string; got %s (quote it, or use a template such as \"${state.question}\")", v.describe())
		}
		if v := f["response_format"]; v != nil && !v.isNull() {
			d.pythonRef(join(path, "response_format"), v)
		}
	}
	if v := f["type"]; v != nil && !v.isNull() && v.kind == mapNode {
		d.pythonRef(join(path, "type"), v)
	}
	for _, k := range []string{"planning_config"} {
		if v := f[k]; v != nil && !v.isNull() && v.kind != mapNode {
			d.errorf(join(path, k), "dict_type", "Input should be a valid dictionary [type=dict_type]: %s must be a mapping", k)
		}
	}
	if v := f["apps"]; v != nil && !v.isNull() && v.kind != seqNode {
		d.errorf(join(path, "apps"), "list_type", "Input should be a valid list [type=list_type]: %s must be a list", "apps")
	}
	known := make(map[string]*node, len(keys))
	for _, k := range keys {
		known[k] = nil
	}
	a.Extra = extras(n, known, "name")
	d.markTree(path, n)
	return a
}

// pythonRef checks a {python: "module.attr"} reference.
func (d *decoder) pythonRef(path string, n *node) {
	if n.kind != mapNode {
		return
	}
	f := d.fields(path, n, extraForbid, "python")
	v, ok := d.required(path, f, "python")
	if !ok {
		return
	}
	s, _ := v.value.(string)
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		d.errorf(join(path, "python"), "python_ref", "Python reference 'python' must be a string")
	case !strings.Contains(s, "."):
		d.errorf(join(path, "python"), "python_ref", "Python reference '%s' must be a dotted import path like 'module.attribute'", s)
	}
}

func (d *decoder) tools(path string, n *node) []ToolRef {
	if n == nil || n.isNull() {
		return nil
	}
	if n.kind != seqNode {
		d.errorf(path, "list_type", "Input should be a valid list [type=list_type]: tools is a list of tool names, got %s", n.describe())
		return nil
	}
	var out []ToolRef
	for i, it := range n.items {
		p := d.mark(index(path, i), it)
		switch {
		case it.kind == mapNode:
			m := d.anyMap(p, it, "a tool")
			name, _ := m["name"].(string)
			out = append(out, ToolRef{Name: name, Settings: m})
		default:
			if s := d.str(p, it); s != "" {
				out = append(out, ToolRef{Name: s})
			}
		}
	}
	return out
}

// crewKeys are the keys Troupe reads from a crew; others go to Crew.Extra.
var crewKeys = []string{"agents", "tasks", "inputs", "manager_agent", "manager_llm", "name", "process", "skills", "mcps"}

func (d *decoder) crew(path string, n *node) *Crew {
	if !d.isMap(path, n, "crew with") {
		return nil
	}
	f := d.fields(path, n, extraAllow, crewKeys...)
	d.warnUnknownKeys(path, n, crewBlock)
	for _, k := range []string{"planning_llm", "chat_llm", "function_calling_llm"} {
		d.warnUnknownLLMKeys(join(path, k), f[k])
	}
	c := &Crew{}
	c.Name = d.optStr(join(path, "name"), f["name"])
	c.Process = d.optStr(join(path, "process"), f["process"])
	if v, ok := d.required(path, f, "agents"); ok {
		c.Agents = d.crewAgents(join(path, "agents"), v)
		if len(c.Agents) == 0 && (v.kind == mapNode || v.kind == seqNode) {
			d.errorf(join(path, "agents"), "crew_agents", "crew action requires inline agent definitions")
		}
	}
	if v, ok := d.required(path, f, "tasks"); ok {
		c.Tasks = d.tasks(join(path, "tasks"), v)
	}
	if v := f["inputs"]; v != nil && !v.isNull() {
		if v.kind != mapNode {
			d.errorf(join(path, "inputs"), "crew_inputs", "crew.inputs must be a mapping")
		} else {
			c.Inputs = d.exprMap(join(path, "inputs"), v, "crew.inputs")
		}
	}
	if v := f["manager_agent"]; v != nil && !v.isNull() {
		if v.kind == mapNode {
			d.pythonRef(join(path, "manager_agent"), v)
		} else {
			c.ManagerAgent = d.str(join(path, "manager_agent"), v)
		}
	}
	if v := f["manager_llm"]; v != nil {
		c.ManagerLLM = d.llm(join(path, "manager_llm"), v)
	}
	c.Skills = d.skills(join(path, "skills"), f["skills"])
	c.MCPs = d.mcps(join(path, "mcps"), f["mcps"])
	known := make(map[string]*node, len(crewKeys))
	for _, k := range crewKeys {
		known[k] = nil
	}
	c.Extra = extras(n, known)
	return c
}

// crewAgents decodes agents as a map, or as CrewAI's list form normalised
// to named agents.
func (d *decoder) crewAgents(path string, n *node) []*Agent {
	var out []*Agent
	switch n.kind {
	case mapNode:
		for i, name := range n.keys {
			p := join(path, name)
			d.pos[p] = n.keyPos[i]
			if a := d.agent(p, n.vals[i], name, false); a != nil {
				out = append(out, a)
			}
		}
	case seqNode:
		for i, it := range n.items {
			p := d.mark(index(path, i), it)
			if it.kind != mapNode {
				d.errorf(p, "crew_agents", "agents[%d] must be an inline agent mapping", i)
				continue
			}
			if nv, ok := it.get("name"); ok {
				name, _ := nv.value.(string)
				if strings.TrimSpace(name) == "" {
					d.errorf(join(p, "name"), "crew_agents", "agents[%d].name must be a non-empty string", i)
					continue
				}
				if a := d.agent(p, it, name, false); a != nil {
					out = append(out, a)
				}
				continue
			}
			if len(it.keys) != 1 {
				d.errorf(p, "crew_agents", "agents[%d] must include a name field or be a one-key mapping", i)
				continue
			}
			name := it.keys[0]
			if a := d.agent(join(p, name), it.vals[0], name, false); a != nil {
				out = append(out, a)
			}
		}
	default:
		d.errorf(path, "crew_agents", "crew agents must be a mapping of name to agent, or a list of agents; got %s", n.describe())
	}
	return out
}

var taskKeys = []string{"description", "expected_output", "name", "agent", "context", "response_schema", "guardrail", "guardrails"}

func (d *decoder) tasks(path string, n *node) []*Task {
	if n.kind != seqNode {
		d.errorf(path, "list_type", "Input should be a valid list [type=list_type]: tasks is a list, got %s", n.describe())
		return nil
	}
	if len(n.items) == 0 {
		d.errorf(path, "crew_tasks", "crew action requires a non-empty tasks list")
		return nil
	}
	var out []*Task
	for i, it := range n.items {
		p := d.mark(index(path, i), it)
		if !d.isMap(p, it, fmt.Sprintf("tasks[%d]", i)) {
			continue
		}
		f := d.fields(p, it, extraAllow, taskKeys...)
		d.warnUnknownKeys(p, it, taskBlock)
		t := &Task{}
		if v, ok := d.required(p, f, "description"); ok {
			t.Description = d.str(join(p, "description"), v)
		}
		if v, ok := d.required(p, f, "expected_output"); ok {
			t.ExpectedOutput = d.str(join(p, "expected_output"), v)
		}
		t.Name = d.optStr(join(p, "name"), f["name"])
		t.Agent = d.optStr(join(p, "agent"), f["agent"])
		if v := f["context"]; v != nil && !v.isNull() {
			t.Context = d.strList(join(p, "context"), v)
			if t.Context == nil {
				t.Context = []string{}
			}
		}
		t.ResponseSchema = d.anyMap(join(p, "response_schema"), f["response_schema"], "response_schema")
		t.Guardrails = d.guardrails(p, f)
		known := make(map[string]*node, len(taskKeys))
		for _, k := range taskKeys {
			known[k] = nil
		}
		t.Extra = extras(it, known)
		d.markTree(p, it)
		out = append(out, t)
	}
	return out
}

// guardrails decodes a task's guardrails list or, without one, its single
// guardrail: requirement texts and {ref: NAME} Go guardrails.
func (d *decoder) guardrails(path string, f map[string]*node) []Guardrail {
	if n := f["guardrails"]; n != nil && !n.isNull() {
		p := join(path, "guardrails")
		if n.kind != seqNode {
			d.errorf(p, "list_type", "Input should be a valid list [type=list_type]: guardrails is a list, got %s", n.describe())
			return nil
		}
		if len(n.items) > 0 {
			out := make([]Guardrail, 0, len(n.items))
			for i, it := range n.items {
				if g, ok := d.guardrail(index(p, i), it); ok {
					out = append(out, g)
				}
			}
			return out
		}
	}
	if n := f["guardrail"]; n != nil && !n.isNull() {
		if g, ok := d.guardrail(join(path, "guardrail"), n); ok {
			return []Guardrail{g}
		}
	}
	return nil
}

// guardrail decodes one guardrail.
func (d *decoder) guardrail(path string, n *node) (Guardrail, bool) {
	d.mark(path, n)
	if s, ok := n.value.(string); ok && n.kind == scalarNode {
		return Guardrail{Prompt: s}, true
	}
	if n.kind == mapNode && len(n.keys) == 1 {
		if ref, ok := n.get("ref"); ok {
			if s, ok := ref.value.(string); ok && ref.kind == scalarNode && strings.TrimSpace(s) != "" {
				return Guardrail{Ref: s}, true
			}
		}
	}
	d.errorf(path, "guardrail_type", "a guardrail is a requirement text or {ref: NAME} naming a Go guardrail registered with flow.WithGuardrail, got %s", n.describe())
	return Guardrail{}, false
}
