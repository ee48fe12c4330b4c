package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/cel"
)

func (e *Engine) compileCrew(def *Definition, method string, a *Action) (execFn, error) {
	if a.Crew != nil {
		if err := e.checkCrewMCP(a.Crew); err != nil {
			return nil, err
		}
		for _, ag := range a.Crew.Agents {
			if err := e.checkAgent(ag, "crew action: agents."+ag.Name); err != nil {
				return nil, err
			}
			if err := e.checkSkills(def, ag, a.Crew, "crew action: agents."+ag.Name); err != nil {
				return nil, err
			}
		}
		for _, t := range a.Crew.Tasks {
			if _, err := e.taskGuardrails(t); err != nil {
				return nil, err
			}
		}
	}
	var inline *cel.Value
	if a.Crew != nil && a.Crew.Inputs != nil {
		v, err := e.env.CompileValue(a.Crew.Inputs)
		if err != nil {
			return nil, err
		}
		inline = v
	}
	actionInputs, err := e.compileWith(a.Inputs)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, r *run, sc *scope, _ any) (any, error) {
		crew := a.Crew
		defaults := inline
		if a.FromDeclaration != "" {
			c, v, err := e.loadCrew(def, a.FromDeclaration)
			if err != nil {
				return nil, err
			}
			crew, defaults = c, v
		}
		inputs := map[string]any{}
		for _, t := range []*cel.Value{defaults, actionInputs} {
			if t == nil {
				continue
			}
			v, err := r.render(ctx, t, sc)
			if err != nil {
				return nil, err
			}
			m, _ := v.(map[string]any)
			maps.Copy(inputs, m)
		}
		spec, err := e.crewSpec(ctx, crew)
		if err != nil {
			return nil, err
		}
		if err := r.crewExtras(ctx, crew, spec); err != nil {
			return nil, err
		}
		if err := e.giveCrewSkills(def, crew, spec); err != nil {
			return nil, err
		}
		out, err := action.RunCrew(ctx, spec, inputs, r.agentOptions(ctx, sc.method))
		if err != nil {
			return nil, err
		}
		r.addUsage(out.TokenUsage)
		return out, nil
	}, nil
}

// loadCrew reads a crew declaration folder, relative to the flow file's
// folder or, for definitions read from memory, to the working directory,
// and confined to that folder and the engine's WithFileRoots.
func (e *Engine) loadCrew(def *Definition, rel string) (*Crew, *cel.Value, error) {
	base, err := fileBase(def)
	if err != nil {
		return nil, nil, err
	}
	f, err := action.LoadCrewDir(base, rel, e.fileRoots...)
	if err != nil {
		return nil, nil, fileRootsHint(err)
	}
	raw, err := json.Marshal(f.Data)
	if err != nil {
		return nil, nil, err
	}
	n, _, err := parseNode(raw)
	if err != nil {
		return nil, nil, err
	}
	d := &decoder{reporter: &reporter{file: f.Path, pos: positions{}}}
	crew := d.crew("crew", n)
	if d.diags.HasErrors() || crew == nil {
		return nil, nil, fmt.Errorf("crew declaration %s: %w", f.Path, d.diags)
	}
	// Keep the file's agent order.
	ordered := make([]*Agent, 0, len(crew.Agents))
	for _, name := range f.Agents {
		if ag := crew.Agent(name); ag != nil {
			ordered = append(ordered, ag)
		}
	}
	if len(ordered) == len(crew.Agents) {
		crew.Agents = ordered
	}
	var inputs *cel.Value
	if crew.Inputs != nil {
		if inputs, err = e.env.CompileValue(crew.Inputs); err != nil {
			return nil, nil, err
		}
	}
	return crew, inputs, nil
}

// crewSpec turns a crew definition into a runnable spec.
func (e *Engine) crewSpec(ctx context.Context, c *Crew) (*action.CrewSpec, error) {
	if c == nil {
		return nil, errors.New("crew action has no crew")
	}
	if err := e.checkCrewMCP(c); err != nil {
		return nil, err
	}
	spec := &action.CrewSpec{Name: c.Name, Process: action.Process(c.Process)}
	for _, a := range c.Agents {
		s, err := e.agentSpec(ctx, a, "crew action: agents."+a.Name)
		if err != nil {
			return nil, err
		}
		if c.ManagerAgent != "" && a.Name == c.ManagerAgent {
			s.Tools, s.Toolsets = nil, nil
			spec.Manager = s
			continue
		}
		e.withCrewMCP(s, c)
		spec.Agents = append(spec.Agents, s)
	}
	for _, t := range c.Tasks {
		var err error
		ts := &action.TaskSpec{Name: t.Name, Description: t.Description, ExpectedOutput: t.ExpectedOutput,
			Agent: t.Agent, Context: t.Context, ResponseSchema: t.ResponseSchema}
		if ts.Guardrails, err = e.taskGuardrails(t); err != nil {
			return nil, err
		}
		if n, ok := t.Extra["guardrail_max_retries"].(int64); ok {
			v := int(n)
			ts.GuardrailMaxRetries = &v
		}
		spec.Tasks = append(spec.Tasks, ts)
	}
	if spec.Process == action.ProcessHierarchical && spec.Manager == nil {
		m, err := e.model(ctx, c.ManagerLLM)
		if err != nil {
			return nil, fmt.Errorf("crew manager: %w", err)
		}
		spec.ManagerModel, spec.ManagerModelName = m, e.modelName(c.ManagerLLM)
	}
	return spec, nil
}

// crewExtras gives crew agents memory and knowledge when the crew or the
// agent asks for them.
func (r *run) crewExtras(ctx context.Context, c *Crew, spec *action.CrewSpec) error {
	crewMem := truthy(c.Extra["memory"])
	for _, s := range spec.Agents {
		a := c.Agent(s.Name)
		if a == nil {
			continue
		}
		r.withMemory(s, crewMem || truthy(a.Extra["memory"]))
		var tasks []string
		for _, t := range c.Tasks {
			if t.Agent == "" || t.Agent == a.Name {
				tasks = append(tasks, t.Description)
			}
		}
		query := strings.Join(tasks, "\n")
		for _, sources := range []any{c.Extra["knowledge_sources"], a.Extra["knowledge_sources"]} {
			block, err := r.knowledgeContext(ctx, sources, query)
			if err != nil {
				return fmt.Errorf("crew action: agents.%s: %w", a.Name, err)
			}
			if block != "" {
				s.Backstory += "\n\n" + block
			}
		}
	}
	return nil
}
