package flow

import (
	"fmt"
	"regexp"
	"sort"
)

var identPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate checks a definition's rules beyond its shape: names, triggers,
// each steps, crews and every CEL expression and template. It is run by
// Load and Build; call it on a Definition changed by hand.
func Validate(def *Definition) Diagnostics {
	pos := def.pos
	if pos == nil {
		pos = positions{}
	}
	d := &decoder{reporter: &reporter{file: def.Source, pos: pos}, built: def.pos == nil}
	d.validate(def)
	d.diags.sort()
	return d.diags
}

func (d *decoder) validate(def *Definition) {
	d.checkConfig(def.Config)
	conversational := def.Conversational != nil && def.Conversational.Enabled
	names := make(map[string]bool, len(def.Methods))
	for i, m := range def.Methods {
		d.curMethod = i
		p := join("methods", m.Name)
		if names[m.Name] {
			d.errorf(p, "duplicate_method", "method %q is declared twice", m.Name)
		}
		names[m.Name] = true
		if !identPattern.MatchString(m.Name) {
			d.errorf(p, "method_name", "Flow method names must match ^[A-Za-z_][A-Za-z0-9_]*$; rename %q (for example %q)", m.Name, suggestIdent(m.Name))
		}
		if m.Listen != nil {
			for _, leaf := range m.Listen.Leaves() {
				if leaf != m.Name {
					continue
				}
				if conversational {
					d.errorf(join(p, "listen"), "self_listen", "listen condition %s matches the handler name %s. In conversational flows, @listen labels are router route names — they share the same trigger namespace as method completion events, so this handler would re-run in a loop. Rename the handler (for example, handle_%s) or use a different route label.", describeCondition(m.Listen), pyRepr(m.Name), m.Name)
				} else {
					d.errorf(join(p, "listen"), "self_listen", "listen condition %s references the handler name %s. A listener triggered by its own completion creates an infinite loop. Listen to a different method or event, or rename the handler.", describeCondition(m.Listen), pyRepr(m.Name))
				}
				break
			}
		}
		if m.Do == nil {
			if d.built {
				d.errorf(join(p, "do"), "missing", "Field required [type=missing]: method %q needs a do action", m.Name)
			}
			continue
		}
		d.checkAction(join(p, "do"), m.Do, false)
	}
	d.suggestBudget = suggestCells
	d.checkGraph(def)
	d.checkOutputs(def, d.runCEL())
}

// checkConfig checks the flow configuration. CrewAI takes any integer for
// max_method_calls; below 1 no listener could run, so Troupe rejects it.
// In a Definition built in Go, 0 is the zero value and means the default.
func (d *decoder) checkConfig(c Config) {
	if n := c.MaxMethodCalls; n < 0 || n == 0 && !d.built {
		d.errorf("config.max_method_calls", "greater_than_equal", "Input should be greater than or equal to 1 [type=greater_than_equal]: max_method_calls is how many times one listener may run in a run (default %d), got %d", DefaultMaxMethodCalls, n)
	}
}

// checkAction applies the model validators and CEL checks of one action.
func (d *decoder) checkAction(path string, a *Action, inStep bool) {
	roots := baseRoots
	if inStep {
		roots = stepRoots
	}
	switch a.Call {
	case CallCode, CallTool:
		if a.Func == nil && a.Ref == "" && d.built {
			d.errorf(join(path, "ref"), "missing", "Field required [type=missing]: add %q", "ref")
		}
		d.checkData(join(path, "with"), a.With, roots)
	case CallCrew:
		// A with block that failed to decode was already reported.
		if (a.FromDeclaration != "") == (a.Crew != nil) && !d.invalid[join(path, "with")] {
			d.errorf(path, "crew_exactly_one", "crew action requires exactly one of from_declaration or with")
		}
		if a.Crew != nil {
			d.checkData(join(path, "with.inputs"), a.Crew.Inputs, roots)
			d.checkCrew(join(path, "with"), a.Crew)
		}
		d.checkData(join(path, "inputs"), a.Inputs, roots)
	case CallAgent:
		if a.FromDeclaration != "" {
			d.checkData(join(path, "with"), a.With, roots)
		}
		if a.Agent != nil {
			d.checkTemplate(join(path, "with.input"), a.Agent.Input, roots)
			d.checkSkills(join(path, "with.skills"), a.Agent.Skills, true)
		}
	case CallExpression:
		d.checkExpr(join(path, "expr"), a.Expr, roots)
	case CallEach:
		if inStep {
			d.errorf(join(path, "call"), "union_tag_invalid", "Input tag 'each' found using 'call' does not match any of the expected tags: %s [type=union_tag_invalid]; each actions cannot be nested", stepTags)
			return
		}
		d.checkExpr(join(path, "in"), a.In, baseRoots)
		d.checkSteps(join(path, "do"), a.Steps)
	case CallScript:
		// Scripts are not validated, as in CrewAI.
	}
}

func (d *decoder) checkSteps(path string, steps []*Step) {
	if len(steps) == 0 {
		d.errorf(path, "each_empty", "each.do must contain at least one step")
		return
	}
	// Inside the steps, outputs also holds the step outputs by step name.
	d.curSteps = make([]string, 0, len(steps))
	for _, s := range steps {
		d.curSteps = append(d.curSteps, s.Name)
	}
	defer func() { d.curSteps = nil }()
	seen := map[string]bool{}
	for i, s := range steps {
		p := index(path, i)
		if s.Name != "" || d.pos[join(p, "name")] != (Pos{}) {
			if !identPattern.MatchString(s.Name) {
				d.errorf(join(p, "name"), "step_name", "each.do step names must match ^[A-Za-z_][A-Za-z0-9_]*$; rename %s", pyRepr(s.Name))
			} else if seen[s.Name] {
				d.errorf(join(p, "name"), "step_duplicate", "each.do step names must be unique: %s", pyRepr(s.Name))
			}
			seen[s.Name] = true
		}
		if s.If != nil {
			d.checkExpr(join(p, "if"), *s.If, stepRoots)
		}
		if s.Action != nil {
			d.checkAction(join(p, "action"), s.Action, true)
		}
	}
}

// checkCrew checks references inside an inline crew that CrewAI only finds
// when it builds the crew; Troupe reports them at load.
func (d *decoder) checkCrew(path string, c *Crew) {
	seen := map[string]bool{}
	for i, t := range c.Tasks {
		p := index(join(path, "tasks"), i)
		if t.Agent != "" && c.Agent(t.Agent) == nil {
			d.errorf(join(p, "agent"), "task_agent", "task references agent %s which does not match a loaded agent definition; agents: %v", pyRepr(t.Agent), agentNames(c))
		}
		for _, ref := range t.Context {
			if !seen[ref] {
				d.errorf(join(p, "context"), "task_context", "has context reference %s but that task has not been defined yet", pyRepr(ref))
			}
		}
		if t.Name != "" {
			seen[t.Name] = true
		}
	}
	if c.ManagerAgent != "" && c.Agent(c.ManagerAgent) == nil {
		d.errorf(join(path, "manager_agent"), "manager_agent", "manager_agent %s does not match an agent definition", pyRepr(c.ManagerAgent))
	}
	d.checkCrewSkills(path, c)
}

func agentNames(c *Crew) []string {
	out := make([]string, 0, len(c.Agents))
	for _, a := range c.Agents {
		out = append(out, a.Name)
	}
	sort.Strings(out)
	return out
}

// checkGraph reports triggers that can never fire, as warnings.
func (d *decoder) checkGraph(def *Definition) {
	// In a conversational flow, listen labels are the routes the built-in
	// conversation router picks from, so every label is an event.
	conversational := def.Conversational != nil && def.Conversational.Enabled
	events := map[string]bool{}
	var undeclared []string
	for _, m := range def.Methods {
		events[m.Name] = true
		for _, e := range m.Events() {
			events[e] = true
		}
		if m.IsRouter() && len(m.Events()) == 0 {
			undeclared = append(undeclared, m.Name)
		}
	}
	eventNames := newSuggester(func() []string { return sortedKeys(events) }, &d.suggestBudget)
	for _, m := range def.Methods {
		p := join("methods", m.Name)
		if len(m.Emit) > 0 && !m.IsRouter() {
			d.warnf(join(p, "emit"), "emit_without_router", "emit is only used by routers to declare downstream events; add router: true or remove emit")
		}
		if !m.IsStart() && m.Listen == nil && !d.invalid[join(p, "listen")] && !d.invalid[join(p, "start")] {
			if m.IsRouter() {
				d.warnf(p, "router_without_trigger", "router %q has neither start nor listen, so it never runs", m.Name)
			} else {
				d.warnf(p, "unreachable", "method %q has neither start nor listen, so it never runs", m.Name)
			}
		}
		cond := m.Listen
		cp := join(p, "listen")
		if m.IsStart() {
			cond, cp = m.Start.When, join(p, "start")
		}
		if cond != nil && !(conversational && cond == m.Listen) {
			d.checkEvents(cp, cond, events, eventNames, undeclared)
		}
		d.checkFeedback(join(p, "human_feedback"), m.HumanFeedback)
	}
	if !conversational {
		d.checkReachable(def)
	}
}

// checkEvents warns about condition leaves that no method and no declared
// router outcome can produce.
func (d *decoder) checkEvents(path string, cond *Condition, events map[string]bool, names *suggester, undeclared []string) {
	for _, leaf := range cond.Leaves() {
		if events[leaf] {
			continue
		}
		hint := ""
		if c := names.suggest(leaf); c != "" {
			hint = fmt.Sprintf("; did you mean %q?", c)
		} else if len(undeclared) > 0 {
			hint = fmt.Sprintf("; if router %q returns it, list it in that router's emit", undeclared[0])
		}
		d.warnf(path, "unknown_event", "%q names no method and no declared router event, so this trigger never fires%s", leaf, hint)
	}
}

// checkFeedback applies CrewAI's log-only human feedback rules (spec 2.4),
// as warnings.
func (d *decoder) checkFeedback(path string, hf *HumanFeedback) {
	if hf == nil {
		return
	}
	if len(hf.Emit) > 0 && hf.LLM == nil {
		d.warnf(join(path, "llm"), "human_feedback_llm_required", "llm is required when human_feedback.emit is set")
	}
	if hf.DefaultOutcome == "" {
		return
	}
	if len(hf.Emit) == 0 {
		d.warnf(join(path, "default_outcome"), "human_feedback_default_requires_emit", "default_outcome requires human_feedback.emit")
	} else if !contains(hf.Emit, hf.DefaultOutcome) {
		d.warnf(join(path, "default_outcome"), "human_feedback_default_not_in_emit", "default_outcome must be one of human_feedback.emit %v", hf.Emit)
	}
}

// checkReachable warns about methods no start can lead to. It propagates
// fired events through an index from event to the methods whose trigger
// names it, so it runs in time linear in the size of the triggers.
func (d *decoder) checkReachable(def *Definition) {
	trigger := func(m *Method) *Condition {
		if m.IsStart() {
			return m.Start.When
		}
		return m.Listen
	}
	always := anyAlwaysStart(def)
	waiting := map[string][]*Method{}
	var queue []*Method
	for _, m := range def.Methods {
		if m.Start.Always || (m.IsStart() && !always) {
			queue = append(queue, m)
		} else if c := trigger(m); c != nil {
			for _, leaf := range c.Leaves() {
				waiting[leaf] = append(waiting[leaf], m)
			}
		}
	}
	reached := map[*Method]bool{}
	fired := map[string]bool{}
	fire := func(event string) {
		if fired[event] {
			return
		}
		fired[event] = true
		for _, n := range waiting[event] {
			if !reached[n] && canFire(trigger(n), fired) {
				queue = append(queue, n)
			}
		}
	}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if reached[m] {
			continue
		}
		reached[m] = true
		if m.IsRouter() && len(m.Events()) == 0 {
			// A router without declared outcomes may emit any event, so
			// every trigger may fire: nothing is provably unreachable.
			return
		}
		fire(m.Name)
		for _, e := range m.Events() {
			fire(e)
		}
	}
	for _, m := range def.Methods {
		if !reached[m] && (m.IsStart() || m.Listen != nil) {
			d.warnf(join("methods", m.Name), "unreachable", "method %q can never run: no start method leads to its trigger", m.Name)
		}
	}
}

func anyAlwaysStart(def *Definition) bool {
	for _, m := range def.Methods {
		if m.Start.Always {
			return true
		}
	}
	return false
}

func canFire(c *Condition, fired map[string]bool) bool {
	switch c.Op {
	case "":
		return fired[c.Event]
	case "and":
		for _, it := range c.Items {
			if !canFire(it, fired) {
				return false
			}
		}
		return true
	}
	for _, it := range c.Items {
		if canFire(it, fired) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// suggestIdent turns a name into a valid method or step name.
func suggestIdent(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		b = append([]byte{'_'}, b...)
	}
	return string(b)
}
