package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
)

// WithLLM sets the model that answers every agent and crew whose model is
// not resolved otherwise: the default model, or a scripted llm/fake model
// in tests.
func WithLLM(m llm.LLM) Option { return func(e *Engine) { e.llm = m } }

// WithModels resolves the model strings and LLM definitions of agents
// (llm: openai/gpt-4o-mini) into models, e.g. providers.Default(os.Getenv).
// Without it, every agent uses the WithLLM model.
func WithModels(r llm.Resolver) Option { return func(e *Engine) { e.models = r } }

// WithToolTimeout bounds each tool call of every agent (and crew agent)
// whose tool sets no timeout of its own (an action.TimedTool); 0 keeps
// action.DefaultToolTimeout, a negative value means no bound. The bound
// reaches the tool through its context; a tool that ignores it is left to
// finish in the background while the agent is told the call timed out.
func WithToolTimeout(d time.Duration) Option { return func(e *Engine) { e.toolTimeout = d } }

// WithDefaultModel names the model (e.g. "openai/gpt-4o-mini") that
// WithModels resolves for agents whose definition names none.
func WithDefaultModel(model string) Option { return func(e *Engine) { e.defaultModel = model } }

// errNoModel explains how to give agents a model.
var errNoModel = errors.New("no model is configured: use flow.WithLLM or flow.WithModels (CLI: set OPENAI_API_KEY or ANTHROPIC_API_KEY and TROUPE_MODEL, or pass --llm-script replies.yaml)")

// model resolves an agent's model choice.
func (e *Engine) model(ctx context.Context, c *LLMConfig) (llm.LLM, error) {
	if e.models != nil && c != nil {
		cfg := llm.Config{Model: c.Model}
		if !c.Short {
			raw := maps.Clone(c.Settings)
			if raw == nil {
				raw = map[string]any{}
			}
			raw["model"] = c.Model
			if c.MaxTokens != nil {
				raw["max_tokens"] = int64(*c.MaxTokens)
			}
			var err error
			if cfg, err = llm.ConfigFromMap(raw); err != nil {
				return nil, err
			}
		}
		return e.models.Resolve(ctx, cfg)
	}
	if e.llm != nil {
		return e.llm, nil
	}
	if e.models != nil && e.defaultModel != "" {
		return e.models.Resolve(ctx, llm.Config{Model: e.defaultModel})
	}
	return nil, errNoModel
}

// modelName is the name of the model an agent with LLM config c uses, as
// events and interceptors report it: the model its definition names, else
// the engine's default model; "" when neither names one.
func (e *Engine) modelName(c *LLMConfig) string {
	if c != nil && c.Model != "" {
		return c.Model
	}
	return e.defaultModel
}

// checkAgent reports what keeps an agent definition from being built:
// CrewAI finds these when the agent runs, Troupe before the flow starts.
func (e *Engine) checkAgent(a *Agent, where string) error {
	if a.FromRepository != "" {
		return fmt.Errorf("%s: from_repository needs CrewAI's agent repository, which Troupe cannot reach; declare role, goal and backstory inline", where)
	}
	for _, f := range []struct{ name, v string }{{"role", a.Role}, {"goal", a.Goal}, {"backstory", a.Backstory}} {
		if f.v == "" && a.Settings[f.name] == nil {
			return fmt.Errorf("%s: missing required field '%s'", where, f.name)
		}
	}
	if err := e.checkAgentMCP(a, where); err != nil {
		return err
	}
	return e.checkAgentTools(a, where)
}

// agentSpec turns an agent definition into a runnable spec; where names
// the agent in errors.
func (e *Engine) agentSpec(ctx context.Context, a *Agent, where string) (*action.AgentSpec, error) {
	if err := e.checkAgent(a, where); err != nil {
		return nil, err
	}
	m, err := e.model(ctx, a.LLM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	spec := &action.AgentSpec{Name: a.Name, Role: a.Role, Goal: a.Goal, Backstory: a.Backstory, Model: m,
		ModelName: e.modelName(a.LLM), ResponseSchema: a.ResponseSchema, ToolTimeout: e.toolTimeout}
	if a.MaxIter != nil {
		spec.MaxIter = *a.MaxIter
	}
	if a.MaxRPM != nil {
		spec.MaxRPM = *a.MaxRPM
	}
	if a.MaxExecTime != nil {
		spec.MaxExecutionTime = time.Duration(*a.MaxExecTime) * time.Second
	}
	if a.AllowDelegation != nil {
		spec.AllowDelegation = *a.AllowDelegation
	}
	applySettings(spec, a.Settings)
	for _, t := range a.Tools {
		tool, ok := e.tool(t.Name)
		if !ok {
			return nil, fmt.Errorf("%s: tool %q is not registered (register it with flow.WithTools)", where, t.Name)
		}
		spec.Tools = append(spec.Tools, tool)
	}
	e.withMCP(spec, a)
	return spec, nil
}

// applySettings overlays an agent's settings block on its fields.
func applySettings(spec *action.AgentSpec, s map[string]any) {
	str := func(k string, dst *string) {
		if v, ok := s[k].(string); ok {
			*dst = v
		}
	}
	num := func(k string) (int, bool) {
		switch v := s[k].(type) {
		case int64:
			return int(v), true
		case float64:
			return int(v), true
		}
		return 0, false
	}
	str("role", &spec.Role)
	str("goal", &spec.Goal)
	str("backstory", &spec.Backstory)
	if n, ok := num("max_iter"); ok {
		spec.MaxIter = n
	}
	if n, ok := num("max_rpm"); ok {
		spec.MaxRPM = n
	}
	if n, ok := num("max_execution_time"); ok {
		spec.MaxExecutionTime = time.Duration(n) * time.Second
	}
	if b, ok := s["allow_delegation"].(bool); ok {
		spec.AllowDelegation = b
	}
}

// checkAgentTools reports unregistered tool names at compile time.
func (e *Engine) checkAgentTools(a *Agent, where string) error {
	for _, t := range a.Tools {
		if _, ok := e.tool(t.Name); !ok {
			return fmt.Errorf("%s: tool %q is not registered (register it with flow.WithTools)", where, t.Name)
		}
	}
	return nil
}

func (e *Engine) compileAgent(def *Definition, method string, a *Action) (execFn, error) {
	ag := a.Agent
	if ag == nil && a.FromDeclaration != "" {
		return e.compileAgentFile(def, a)
	}
	if ag == nil {
		return nil, errors.New("agent action has no with block")
	}
	where := "agent"
	if ag.Role != "" {
		where = fmt.Sprintf("agent %q", ag.Role)
	}
	if err := e.checkAgent(ag, where); err != nil {
		return nil, err
	}
	if err := e.checkSkills(def, ag, nil, where); err != nil {
		return nil, err
	}
	input, err := e.env.CompileTemplate(ag.Input)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, r *run, sc *scope, _ any) (any, error) {
		r.mu.Lock()
		text, err := input.Render(ctx, r.vars(sc))
		r.mu.Unlock()
		if err != nil {
			return nil, err
		}
		s, ok := text.(string)
		if !ok {
			return nil, fmt.Errorf("agent input must render to a string (got %s)", typeName(text))
		}
		spec, err := e.agentSpec(ctx, ag, where)
		if err != nil {
			return nil, err
		}
		if err := e.giveSkills(def, spec, ag, nil, where); err != nil {
			return nil, err
		}
		r.withMemory(spec, truthy(ag.Extra["memory"]))
		task := action.AgentTask{Input: s, ResponseSchema: ag.ResponseSchema}
		if task.Context, err = r.knowledgeContext(ctx, ag.Extra["knowledge_sources"], s); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out, err := action.RunAgent(ctx, spec, task, r.agentOptions(ctx, sc.method))
		if err != nil {
			return nil, err
		}
		r.addUsage(out.Usage)
		return out, nil
	}, nil
}

// agentOptions forwards agent, LLM and tool events into the run's events,
// each under its enclosing event (the outermost under the method's), and
// passes model and tool calls through the engine's interceptors.
func (r *run) agentOptions(ctx context.Context, method string) *action.RunOptions {
	opts := &action.RunOptions{Stream: r.p.def.Config.Stream, ToolRound: r.e.toolRound, Clock: r.e.clock}
	if r.e.logger.Enabled(context.Background(), -4) {
		opts.Logger = r.e.logger
	}
	if len(r.e.intercept) > 0 || r.budget() != nil || r.e.retry != nil {
		opts.Intercept = r.e.interceptCalls
	}
	if r.events != nil {
		root := spanOf(ctx)
		// seqs maps the agent's event IDs to the run's sequence numbers;
		// the observer is called one event at a time.
		seqs := map[int64]int64{}
		opts.Observer = func(ev action.Event) {
			parent := root
			if p, ok := seqs[ev.Parent]; ok {
				parent = p
			}
			seqs[ev.ID] = r.events.emit(Event{Kind: EventKind(ev.Kind), Parent: parent, Method: method, Agent: ev.Agent,
				Model: ev.Model, Tool: ev.Tool, Arguments: ev.Arguments, Task: ev.Task, CallID: ev.CallID, Text: ev.TextDelta + ev.Result, Usage: ev.Usage,
				Err: ev.Err, Duration: ev.Duration, Replayed: ev.Replayed, Skill: ev.Skill, Detail: ev.Detail})
		}
	}
	return opts
}

// spanKey keys, in a method's context, the sequence number of the event
// its own events nest under.
type spanKey struct{}

// spanOf returns the sequence number of the event ctx's work nests under.
func spanOf(ctx context.Context) int64 {
	seq, _ := ctx.Value(spanKey{}).(int64)
	return seq
}

func (r *run) addUsage(u llm.Usage) {
	r.mu.Lock()
	r.res.Usage.Add(u)
	r.mu.Unlock()
}
