package flow

import "fmt"

func (d *decoder) method(path, name string, n *node) *Method {
	if !d.isMap(path, n, "a method") {
		return nil
	}
	f := d.fields(path, n, extraIgnore, "description", "do", "start", "listen", "router", "emit",
		"human_feedback", "persist", "budgets")
	m := &Method{Name: name}
	m.Description = d.optStr(join(path, "description"), f["description"])
	if v, ok := f["do"]; ok {
		m.Do = d.action(join(path, "do"), v, false)
	} else {
		d.errorf(join(path, "do"), "missing", "Field required [type=missing]: method %q needs a do action (for example do: {call: expression, expr: state.topic})", name)
	}
	if v := f["start"]; v != nil {
		n := len(d.diags)
		if m.Start = d.start(join(path, "start"), v); len(d.diags) > n {
			d.invalid[join(path, "start")] = true
		}
	}
	if v := f["listen"]; v != nil && !v.isNull() {
		if m.Listen = d.condition(join(path, "listen"), v); m.Listen == nil {
			d.invalid[join(path, "listen")] = true
		}
	}
	if v := f["router"]; v != nil {
		m.Router = d.boolean(join(path, "router"), v)
	}
	m.Emit = d.strList(join(path, "emit"), f["emit"])
	if v := f["human_feedback"]; v != nil && !v.isNull() {
		m.HumanFeedback = d.humanFeedback(join(path, "human_feedback"), v)
	}
	if v := f["budgets"]; v != nil && !v.isNull() {
		m.Budget = d.budget(join(path, "budgets"), v)
	}
	if v := f["persist"]; v != nil && !v.isNull() {
		m.Persist = d.persist(join(path, "persist"), v)
	}
	// CrewAI canonicalises human_feedback.emit into a router.
	if m.HumanFeedback != nil && len(m.HumanFeedback.Emit) > 0 {
		if len(m.Emit) > 0 {
			d.warnf(join(path, "emit"), "emit_replaced", "emit is ignored because human_feedback.emit declares this router's outcomes")
		}
		m.Router = true
		m.Emit = nil
	}
	return m
}

// start decodes start: true, a falsy value, or a condition.
func (d *decoder) start(path string, n *node) Start {
	switch n.kind {
	case mapNode:
		if len(n.keys) == 0 {
			return Start{}
		}
		return Start{When: d.condition(path, n)}
	case seqNode:
		d.errorf(path, "start_type", "start must be true, an event name or an {and: [...]}/{or: [...]} mapping, got a list")
		return Start{}
	}
	switch v := n.value.(type) {
	case nil:
		return Start{}
	case bool:
		return Start{Always: v}
	case string:
		if v == "" {
			return Start{}
		}
		return Start{When: On(v)}
	case int64, float64:
		// pydantic's lax bool takes 0 and 1 (also as floats).
		if b, ok := laxBool(v); ok {
			return Start{Always: b}
		}
	case bigInt:
		return Start{}
	}
	d.errorf(path, "start_type", "start must be true, an event name or an {and: [...]}/{or: [...]} mapping, got %s", n.describe())
	return Start{}
}

// condition decodes an event name or an and/or mapping. CrewAI accepts any
// mapping here and fails on the first trigger; Troupe rejects bad shapes.
func (d *decoder) condition(path string, n *node) *Condition {
	d.mark(path, n)
	switch n.kind {
	case scalarNode:
		s, ok := n.value.(string)
		if !ok && n.outOfRange() {
			return nil
		}
		if !ok {
			d.errorf(path, "condition_type", "a condition must be an event name or an {and: [...]}/{or: [...]} mapping, got %s", n.describe())
			return nil
		}
		return On(s)
	case seqNode:
		d.errorf(path, "condition_type", "a condition cannot be a list; write {or: [a, b]} or {and: [a, b]}")
		return nil
	}
	if len(n.keys) != 1 || (n.keys[0] != "and" && n.keys[0] != "or") {
		d.errorf(path, "condition_shape", "a condition mapping must have exactly one key, and or or, with a list of conditions (for example {or: [a, b]}); got keys %v", n.keys)
		return nil
	}
	op := n.keys[0]
	list := n.vals[0]
	p := join(path, op)
	d.pos[p] = n.keyPos[0]
	if list.kind != seqNode {
		d.errorf(p, "condition_shape", "%s takes a list of conditions (for example {%s: [a, b]}), got %s", op, op, list.describe())
		return nil
	}
	if len(list.items) == 0 {
		d.errorf(p, "condition_shape", "%s needs at least one condition", op)
		return nil
	}
	c := &Condition{Op: Op(op)}
	for i, it := range list.items {
		sub := d.condition(index(p, i), it)
		if sub == nil {
			return nil
		}
		c.Items = append(c.Items, sub)
	}
	return c
}

// actionKeys lists the keys of each action model; all forbid extra keys.
var actionKeys = map[CallKind][]string{
	CallCode:       {"call", "ref", "with", "with_=with"},
	CallTool:       {"call", "ref", "with", "with_=with"},
	CallCrew:       {"call", "from_declaration", "with", "with_=with", "inputs"},
	CallAgent:      {"call", "with", "with_=with"},
	CallExpression: {"call", "expr"},
	CallScript:     {"call", "code", "language"},
	CallEach:       {"call", "in", "in_=in", "do"},
}

const stepTags = "'code', 'tool', 'crew', 'agent', 'expression', 'script'"

// action decodes a method's do block, or a step's action when inStep.
func (d *decoder) action(path string, n *node, inStep bool) *Action {
	if !d.isMap(path, n, "an action") {
		return nil
	}
	call := CallCode
	if v, ok := n.get("call"); ok {
		str, isStr := v.value.(string)
		s := CallKind(str)
		_, known := actionKeys[s]
		switch {
		case inStep && (!isStr || !known || s == CallEach):
			d.errorf(join(path, "call"), "union_tag_invalid", "Input tag %s found using 'call' does not match any of the expected tags: %s [type=union_tag_invalid]%s", pyRepr(v.data()), stepTags, nestedEachHint(s))
			return nil
		case !isStr || !known:
			d.errorf(join(path, "call"), "call_invalid", "call must be one of code, tool, crew, agent, expression, script, each; got %s", pyRepr(v.data()))
			return nil
		}
		call = s
	} else if inStep {
		d.errorf(join(path, "call"), "union_tag_not_found", "Unable to extract tag using discriminator 'call' [type=union_tag_not_found]: a step action needs call: %s", "code, tool, crew, agent, expression or script")
		return nil
	}
	f := d.fields(path, n, extraForbid, actionKeys[call]...)
	a := &Action{Call: call}
	switch call {
	case CallCode, CallTool:
		if v, ok := d.required(path, f, "ref"); ok {
			a.Ref = d.str(join(path, "ref"), v)
		}
		a.With = d.exprMap(join(path, "with"), f["with"], "with")
	case CallCrew:
		a.FromDeclaration = d.optStr(join(path, "from_declaration"), f["from_declaration"])
		if v := f["with"]; v != nil && !v.isNull() {
			if a.Crew = d.crew(join(path, "with"), v); a.Crew == nil {
				d.invalid[join(path, "with")] = true
			}
		}
		a.Inputs = d.exprMap(join(path, "inputs"), f["inputs"], "crew action inputs")
	case CallAgent:
		if v, ok := d.required(path, f, "with"); ok {
			if _, file := v.get("from_declaration"); file && v.kind == mapNode {
				d.agentFile(join(path, "with"), v, a)
			} else {
				a.Agent = d.agent(join(path, "with"), v, "", true)
			}
		}
	case CallExpression:
		if v, ok := d.required(path, f, "expr"); ok {
			a.Expr = d.celText(join(path, "expr"), v)
		}
	case CallScript:
		if v, ok := d.required(path, f, "code"); ok {
			a.Code = d.str(join(path, "code"), v)
		}
		a.Language = "python"
		if v := f["language"]; v != nil {
			if s := d.str(join(path, "language"), v); s != "python" {
				d.errorf(join(path, "language"), "literal_error", "Input should be 'python' [type=literal_error]")
			}
		}
	case CallEach:
		if v, ok := d.required(path, f, "in"); ok {
			a.In = d.celText(join(path, "in"), v)
		}
		if v, ok := d.required(path, f, "do"); ok {
			a.Steps = d.steps(join(path, "do"), v)
		}
	}
	return a
}

func nestedEachHint(call CallKind) string {
	if call == CallEach {
		return "; each actions cannot be nested"
	}
	return ""
}

func (d *decoder) steps(path string, n *node) []*Step {
	if n.kind != seqNode {
		d.errorf(path, "list_type", "Input should be a valid list [type=list_type]: each.do is a list of steps, got %s", n.describe())
		return nil
	}
	steps := make([]*Step, 0, len(n.items))
	for i, it := range n.items {
		p := d.mark(index(path, i), it)
		if !d.isMap(p, it, "an each step") {
			continue
		}
		f := d.fields(p, it, extraForbid, "name", "if", "if_=if", "action")
		s := &Step{}
		if v, ok := d.required(p, f, "name"); ok {
			s.Name = d.str(join(p, "name"), v)
		}
		if v := f["if"]; v != nil && !v.isNull() {
			cond := d.celText(join(p, "if"), v)
			s.If = &cond
		}
		if v, ok := d.required(p, f, "action"); ok {
			s.Action = d.action(join(p, "action"), v, true)
		}
		steps = append(steps, s)
	}
	return steps
}

// describeCondition renders a condition as Python's repr of the YAML value,
// as CrewAI quotes it in messages.
func describeCondition(c *Condition) string {
	if c == nil {
		return "None"
	}
	if c.Op == "" {
		return pyRepr(c.Event)
	}
	s := fmt.Sprintf("{%s: [", pyRepr(c.Op))
	for i, it := range c.Items {
		if i > 0 {
			s += ", "
		}
		s += describeCondition(it)
	}
	return s + "]}"
}
