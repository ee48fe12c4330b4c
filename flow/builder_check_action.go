package flow

import "slices"

// action copies a do block (or a step's action when inStep), reporting the
// shapes the decoder rejects.
func (c *canon) action(path string, in *Action, inStep bool) *Action {
	a := *in
	switch a.Call {
	case "":
		if inStep {
			c.errorf(join(path, "call"), "union_tag_not_found", "Unable to extract tag using discriminator 'call' [type=union_tag_not_found]: a step action needs call: %s", "code, tool, crew, agent, expression or script")
			return &a
		}
		// As in YAML, an action without call is a code action.
		a.Call = CallCode
	case CallCode, CallTool, CallCrew, CallAgent, CallExpression, CallScript, CallEach:
	default:
		if inStep {
			c.errorf(join(path, "call"), "union_tag_invalid", "Input tag %s found using 'call' does not match any of the expected tags: %s [type=union_tag_invalid]", pyRepr(a.Call), stepTags)
		} else {
			c.errorf(join(path, "call"), "call_invalid", "call must be one of code, tool, crew, agent, expression, script, each; got %s", pyRepr(a.Call))
		}
		return &a
	}
	a.With = c.data(join(path, "with"), in.With)
	a.Inputs = c.data(join(path, "inputs"), in.Inputs)
	if in.Crew != nil {
		a.Crew = c.crew(join(path, "with"), in.Crew)
	}
	switch a.Call {
	case CallAgent:
		if in.Agent == nil && in.FromDeclaration == "" {
			c.errorf(join(path, "with"), "missing", "Field required [type=missing]: add %q", "with")
		} else {
			a.Agent = c.agent(join(path, "with"), in.Agent, true)
		}
	case CallScript:
		if a.Language == "" {
			a.Language = "python"
		} else if a.Language != "python" {
			c.errorf(join(path, "language"), "literal_error", "Input should be 'python' [type=literal_error]")
		}
	case CallEach:
		a.Steps = c.steps(join(path, "do"), in.Steps)
	}
	return &a
}

func (c *canon) steps(path string, in []*Step) []*Step {
	if in == nil {
		return nil
	}
	out := make([]*Step, 0, len(in))
	for i, s := range in {
		p := index(path, i)
		if s == nil {
			c.errorf(p, "dict_type", "Input should be a valid dictionary [type=dict_type]: an each step must be a mapping, got null")
			continue
		}
		step := &Step{Name: s.Name}
		if s.Name == "" {
			// Validate checks names only where the source had one.
			c.errorf(join(p, "name"), "step_name", "each.do step names must match ^[A-Za-z_][A-Za-z0-9_]*$; rename %s", pyRepr(s.Name))
		}
		if s.If != nil {
			cond := *s.If
			step.If = &cond
		}
		if s.Action == nil {
			c.errorf(join(p, "action"), "missing", "Field required [type=missing]: add %q", "action")
		} else {
			step.Action = c.action(join(p, "action"), s.Action, true)
		}
		out = append(out, step)
	}
	return out
}

// agent copies an inline agent. A crew agent's Input is not one of its
// fields, so it moves to Extra as the decoder would keep it.
func (c *canon) agent(path string, in *Agent, action bool) *Agent {
	a := *in
	a.LLM = c.llm(join(path, "llm"), in.LLM)
	if in.Tools != nil {
		a.Tools = make([]ToolRef, 0, len(in.Tools))
		for i, t := range in.Tools {
			settings := c.data(index(join(path, "tools"), i), t.Settings)
			if t.Name == "" && settings == nil {
				continue // the decoder drops empty tool names
			}
			a.Tools = append(a.Tools, ToolRef{Name: t.Name, Settings: settings})
		}
		if len(a.Tools) == 0 {
			a.Tools = nil
		}
	}
	if in.AllowDelegation != nil {
		b := *in.AllowDelegation
		a.AllowDelegation = &b
	}
	a.MaxIter = cloneInt(in.MaxIter)
	a.MaxRPM = cloneInt(in.MaxRPM)
	a.MaxExecTime = cloneInt(in.MaxExecTime)
	a.Settings = c.data(join(path, "settings"), in.Settings)
	a.MCPs = c.mcps(join(path, "mcps"), in.MCPs)
	a.ResponseSchema = c.data(join(path, "response_schema"), in.ResponseSchema)
	a.Skills = cloneStrings(in.Skills)
	a.Extra = c.data(path, in.Extra)
	if !action && a.Input != "" {
		if a.Extra == nil {
			a.Extra = map[string]any{}
		}
		a.Extra["input"] = a.Input
		a.Input = ""
	}
	return &a
}

func (c *canon) crew(path string, in *Crew) *Crew {
	cr := *in
	cr.MCPs = c.mcps(join(path, "mcps"), in.MCPs)
	ap := join(path, "agents")
	cr.Agents = make([]*Agent, 0, len(in.Agents))
	for i, a := range in.Agents {
		switch {
		case a == nil:
			c.errorf(index(ap, i), "crew_agents", "agents[%d] must be an inline agent mapping", i)
		case a.Name == "":
			c.errorf(join(index(ap, i), "name"), "crew_agents", "agents[%d].name must be a non-empty string", i)
		default:
			cr.Agents = append(cr.Agents, c.agent(join(ap, a.Name), a, false))
		}
	}
	if len(in.Agents) == 0 {
		c.errorf(ap, "crew_agents", "crew action requires inline agent definitions")
	}
	tp := join(path, "tasks")
	if len(in.Tasks) == 0 {
		c.errorf(tp, "crew_tasks", "crew action requires a non-empty tasks list")
	}
	cr.Tasks = nil
	for i, t := range in.Tasks {
		if t == nil {
			c.errorf(index(tp, i), "dict_type", "Input should be a valid dictionary [type=dict_type]: tasks[%d] must be a mapping, got null", i)
			continue
		}
		task := *t
		task.Context = cloneStrings(t.Context)
		task.ResponseSchema = c.data(join(index(tp, i), "response_schema"), t.ResponseSchema)
		task.Extra = c.data(index(tp, i), t.Extra)
		task.Guardrails = slices.Clone(t.Guardrails)
		cr.Tasks = append(cr.Tasks, &task)
	}
	cr.Inputs = c.data(join(path, "inputs"), in.Inputs)
	cr.ManagerLLM = c.llm(join(path, "manager_llm"), in.ManagerLLM)
	cr.Skills = cloneStrings(in.Skills)
	cr.Extra = c.data(path, in.Extra)
	return &cr
}
