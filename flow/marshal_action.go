package flow

import "go.yaml.in/yaml/v3"

// actionNode writes a do block (or a step's action): call first, then the
// fields of that kind.
func (w *docWriter) actionNode(path string, a *Action) *yaml.Node {
	m := newDocMap()
	call := a.Call
	if call == "" {
		call = CallCode
	}
	m.add("call", strNode(string(call)))
	switch call {
	case CallCode, CallTool:
		if a.Ref == "" && a.Func != nil {
			w.fail(path, "the body is a Go function with no ref; set Action.Ref to the name it is registered under (WithCode) to serialise it")
		}
		m.add("ref", strNode(a.Ref))
		if a.With != nil {
			m.add("with", w.dataNode(join(path, "with"), a.With))
		}
	case CallCrew:
		if a.FromDeclaration != "" {
			m.add("from_declaration", strNode(a.FromDeclaration))
		}
		if a.Crew != nil {
			m.add("with", w.crewNode(join(path, "with"), a.Crew))
		}
		if a.Inputs != nil {
			m.add("inputs", w.dataNode(join(path, "inputs"), a.Inputs))
		}
	case CallAgent:
		if a.Agent != nil {
			m.add("with", w.agentNode(join(path, "with"), a.Agent, true))
		} else if a.FromDeclaration != "" {
			m.add("with", w.dataNode(join(path, "with"), agentFileWith(a)))
		}
	case CallExpression:
		m.add("expr", strNode(a.Expr))
	case CallScript:
		m.add("code", strNode(a.Code))
		if a.Language != "" && a.Language != "python" {
			m.add("language", strNode(a.Language))
		}
	case CallEach:
		m.add("in", strNode(a.In))
		steps := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: make([]*yaml.Node, 0, len(a.Steps))}
		for i, s := range a.Steps {
			if s != nil {
				steps.Content = append(steps.Content, w.stepNode(index(join(path, "do"), i), s))
			}
		}
		m.add("do", steps)
	}
	return m.Node
}

func (w *docWriter) stepNode(path string, s *Step) *yaml.Node {
	m := newDocMap()
	m.add("name", strNode(s.Name))
	if s.If != nil {
		m.add("if", strNode(*s.If))
	}
	if s.Action != nil {
		m.add("action", w.actionNode(join(path, "action"), s.Action))
	}
	return m.Node
}

// agentNode writes an inline agent with its Extra keys merged back; action
// adds the input of an agent action.
func (w *docWriter) agentNode(path string, a *Agent, action bool) *yaml.Node {
	m := newDocMap()
	w.agentFields(path, m, a)
	if action {
		m.add("input", strNode(a.Input))
	}
	return m.Node
}

func (w *docWriter) agentFields(path string, m docMap, a *Agent) {
	optStr := func(key, v string) {
		if v != "" {
			m.add(key, strNode(v))
		}
	}
	optInt := func(key string, v *int) {
		if v != nil {
			m.add(key, intNode(int64(*v)))
		}
	}
	optStr("role", a.Role)
	optStr("goal", a.Goal)
	optStr("backstory", a.Backstory)
	optStr("from_repository", a.FromRepository)
	if a.LLM != nil {
		m.add("llm", w.llmNode(join(path, "llm"), a.LLM))
	}
	if len(a.Tools) > 0 {
		tools := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: make([]*yaml.Node, 0, len(a.Tools))}
		for i, t := range a.Tools {
			if t.Settings != nil {
				tools.Content = append(tools.Content, w.dataNode(index(join(path, "tools"), i), t.Settings))
			} else {
				tools.Content = append(tools.Content, strNode(t.Name))
			}
		}
		m.add("tools", tools)
	}
	if _, inSettings := a.Settings["mcps"]; len(a.MCPs) > 0 && !inSettings {
		m.add("mcps", w.dataNode(join(path, "mcps"), mcpData(a.MCPs)))
	}
	if a.AllowDelegation != nil {
		m.add("allow_delegation", boolNode(*a.AllowDelegation))
	}
	optInt("max_iter", a.MaxIter)
	optInt("max_rpm", a.MaxRPM)
	optInt("max_execution_time", a.MaxExecTime)
	if a.Settings != nil {
		m.add("settings", w.dataNode(join(path, "settings"), a.Settings))
	}
	if a.ResponseSchema != nil {
		m.add("response_schema", w.dataNode(join(path, "response_schema"), a.ResponseSchema))
	}
	if a.Skills != nil {
		m.add("skills", strListNode(a.Skills, false))
	}
	w.addExtra(path, m, a.Extra, agentKeys, []string{"name", "input"})
}

func (w *docWriter) crewNode(path string, c *Crew) *yaml.Node {
	m := newDocMap()
	if c.Name != "" {
		m.add("name", strNode(c.Name))
	}
	if c.Process != "" {
		m.add("process", strNode(c.Process))
	}
	m.add("agents", w.crewAgentsNode(join(path, "agents"), c.Agents))
	tasks := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: make([]*yaml.Node, 0, len(c.Tasks))}
	for i, t := range c.Tasks {
		if t != nil {
			tasks.Content = append(tasks.Content, w.taskNode(index(join(path, "tasks"), i), t))
		}
	}
	m.add("tasks", tasks)
	if c.Inputs != nil {
		m.add("inputs", w.dataNode(join(path, "inputs"), c.Inputs))
	}
	if c.ManagerAgent != "" {
		m.add("manager_agent", strNode(c.ManagerAgent))
	}
	if c.ManagerLLM != nil {
		m.add("manager_llm", w.llmNode(join(path, "manager_llm"), c.ManagerLLM))
	}
	if c.Skills != nil {
		m.add("skills", strListNode(c.Skills, false))
	}
	if len(c.MCPs) > 0 {
		m.add("mcps", w.dataNode(join(path, "mcps"), mcpData(c.MCPs)))
	}
	w.addExtra(path, m, c.Extra, crewKeys)
	return m.Node
}

// crewAgentsNode writes agents as a mapping by name, or in CrewAI's list
// form when names are missing or repeated and a mapping would lose agents.
func (w *docWriter) crewAgentsNode(path string, agents []*Agent) *yaml.Node {
	seen := make(map[string]bool, len(agents))
	asMap := true
	for _, a := range agents {
		if a == nil {
			continue
		}
		if a.Name == "" || seen[a.Name] {
			asMap = false
		}
		seen[a.Name] = true
	}
	if asMap {
		m := newDocMap()
		for _, a := range agents {
			if a != nil {
				m.add(a.Name, w.agentNode(join(path, a.Name), a, false))
			}
		}
		return m.Node
	}
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for i, a := range agents {
		if a == nil {
			continue
		}
		m := newDocMap()
		m.add("name", strNode(a.Name))
		w.agentFields(index(path, i), m, a)
		list.Content = append(list.Content, m.Node)
	}
	return list
}

func (w *docWriter) taskNode(path string, t *Task) *yaml.Node {
	m := newDocMap()
	if t.Name != "" {
		m.add("name", strNode(t.Name))
	}
	m.add("description", strNode(t.Description))
	m.add("expected_output", strNode(t.ExpectedOutput))
	if t.Agent != "" {
		m.add("agent", strNode(t.Agent))
	}
	if t.Context != nil {
		m.add("context", strListNode(t.Context, true))
	}
	if t.ResponseSchema != nil {
		m.add("response_schema", w.dataNode(join(path, "response_schema"), t.ResponseSchema))
	}
	switch len(t.Guardrails) {
	case 0:
	case 1:
		m.add("guardrail", w.guardrailNode(join(path, "guardrail"), t.Guardrails[0]))
	default:
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i, g := range t.Guardrails {
			list.Content = append(list.Content, w.guardrailNode(index(join(path, "guardrails"), i), g))
		}
		m.add("guardrails", list)
	}
	w.addExtra(path, m, t.Extra, taskKeys)
	return m.Node
}

// guardrailNode writes a guardrail: its requirement text, or {ref: NAME}.
// A Go function set directly is not serialised; its Ref, if any, is.
func (w *docWriter) guardrailNode(path string, g Guardrail) *yaml.Node {
	if g.Ref == "" && g.Func != nil {
		w.fail(path, "the guardrail is a Go function with no ref; set Guardrail.Ref to the name it is registered under (WithGuardrail) to serialise it")
	}
	if g.Ref == "" {
		return strNode(g.Prompt)
	}
	m := newDocMap()
	m.add("ref", strNode(g.Ref))
	m.Style = yaml.FlowStyle
	return m.Node
}
