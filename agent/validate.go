package agent

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/internal/diag"
)

// TransitionTool is the name of the built-in tool through which the model
// raises a state-machine event.
const TransitionTool = "transition"

// The CEL variables of the format: inputs in the system prompt; tool,
// args and result in event conditions.
const (
	varInputs = "inputs"
	varTool   = "tool"
	varArgs   = "args"
	varResult = "result"
)

var (
	promptRoots = []string{varInputs}
	eventRoots  = []string{varTool, varArgs, varResult}
)

// celEnv is the CEL environment of agent files; like cel.Shared, it holds
// only bounded caches of immutable values.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(cel.WithVariables(varInputs, varTool, varArgs, varResult))
})

// validate checks what decoding cannot: tool names, templates, the state
// machine and hand-offs.
func validate(def *Definition, r *reporter, o *options) {
	env, err := celEnv()
	if err != nil {
		r.errorf(place{file: def.File}, "", "cel", "%v", err)
		return
	}
	names := def.toolNames()
	if o.tools != nil {
		for i, t := range def.Tools {
			if tool, ok := o.tools.Get(t.Name); ok {
				checkParameters(t, tool.Spec().Parameters, fmt.Sprintf("agent.tools[%d].parameters", i), r.pos[toolPath(i)], r)
				continue
			}
			msg := fmt.Sprintf("unknown tool %q", t.Name)
			if s := diag.Closest(t.Name, o.tools.Names()); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			r.errorf(r.pos[toolPath(i)], fmt.Sprintf("agent.tools[%d]", i), "unknown_tool", "%s", msg)
		}
	}
	for _, p := range env.CheckTemplate("agent.system_prompt", def.SystemPrompt, promptRoots) {
		r.errorf(r.at("agent.system_prompt"), "agent.system_prompt", p.Code, "%s", p.Message)
	}
	if def.StateMachine != nil {
		// States may list the hand-off tools too.
		for _, h := range def.Handoffs {
			names = append(names, HandoffPrefix+handoffName(h))
		}
		checkStateMachine(def.StateMachine, names, env, r)
	}
	checkHandoffs(def, r, o)
}

func (def *Definition) toolNames() []string {
	out := make([]string, len(def.Tools))
	for i, t := range def.Tools {
		out[i] = t.Name
	}
	return out
}

func checkStateMachine(m *StateMachine, tools []string, env *cel.Env, r *reporter) {
	const path = "agent.state_machine"
	states := make([]string, len(m.States))
	for i, s := range m.States {
		states[i] = s.Name
	}
	events := make([]string, len(m.Events))
	for i, e := range m.Events {
		events[i] = e.Name
	}
	unknown := func(p, what, name string, known []string) {
		msg := fmt.Sprintf("unknown %s %q", what, name)
		if s := diag.Closest(name, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		r.errorf(r.at(p), p, "unknown_"+what, "%s", msg)
	}
	if len(m.States) == 0 {
		return // reported by the decoder
	}
	if m.Initial != "" && m.state(m.Initial) == nil {
		unknown(path+".initial", "state", m.Initial, states)
	}
	used := map[string]bool{}
	for _, s := range m.States {
		sp := path + ".states." + s.Name
		for i, t := range s.Tools {
			if t == TransitionTool {
				continue
			}
			if !slices.Contains(tools, t) {
				tp := fmt.Sprintf("%s.tools[%d]", sp, i)
				r.errorf(r.at(tp), tp, "state_tool", "tool %q is not among the agent's tools", t)
			}
		}
		for _, t := range s.On {
			tp := sp + ".on." + t.Event
			used[t.Event] = true
			if m.event(t.Event) == nil {
				unknown(tp, "event", t.Event, events)
			}
			if t.Target != "" && m.state(t.Target) == nil {
				unknown(tp, "state", t.Target, states)
			}
		}
	}
	for _, e := range m.Events {
		ep := path + ".events." + e.Name
		if !used[e.Name] {
			r.warnf(r.at(ep), ep, "unused_event", "event %q is not used by any state's on:", e.Name)
		}
		if e.Condition == "" {
			continue
		}
		for _, p := range env.CheckExpr(ep, e.Condition, eventRoots) {
			r.errorf(r.at(ep), ep, p.Code, "%s", p.Message)
		}
	}
	if m.state(m.Initial) == nil {
		return
	}
	// Reachability from the initial state, and of a final state.
	reached := map[string]bool{m.Initial: true}
	queue := []string{m.Initial}
	for len(queue) > 0 {
		s := m.state(queue[0])
		queue = queue[1:]
		for _, t := range s.On {
			if m.state(t.Target) != nil && !reached[t.Target] {
				reached[t.Target] = true
				queue = append(queue, t.Target)
			}
		}
	}
	final := false
	for _, s := range m.States {
		if !reached[s.Name] {
			sp := path + ".states." + s.Name
			r.errorf(r.at(sp), sp, "unreachable", "state %q cannot be reached from the initial state %q", s.Name, m.Initial)
		}
		final = final || (reached[s.Name] && s.Final)
	}
	if !final {
		r.errorf(r.at(path), path, "no_final_state", "no final state can be reached from the initial state %q (mark one with final: true)", m.Initial)
	}
}

// checkParameters compares the parameters a file declares for a tool with
// those of the registered tool: each declared one must exist, and each one
// the tool requires must be declared.
func checkParameters(t ToolRef, doc map[string]any, path string, at place, r *reporter) {
	if t.Parameters == nil {
		return
	}
	props, _ := doc["properties"].(map[string]any)
	known := make([]string, 0, len(props))
	for k := range props {
		known = append(known, k)
	}
	slices.Sort(known)
	for _, p := range t.Parameters {
		if _, ok := props[p]; ok {
			continue
		}
		msg := fmt.Sprintf("tool %q takes no parameter %q (it takes: %s)", t.Name, p, strings.Join(known, ", "))
		if s := diag.Closest(p, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		r.errorf(at, path, "tool_parameters", "%s", msg)
	}
	required, _ := doc["required"].([]any)
	for _, q := range required {
		if name, ok := q.(string); ok && !slices.Contains(t.Parameters, name) {
			r.errorf(at, path, "tool_parameters", "tool %q requires parameter %q, which the file does not declare", t.Name, name)
		}
	}
}
