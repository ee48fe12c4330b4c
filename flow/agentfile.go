package flow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/agent"
	"github.com/troupe-dev/troupe/internal/confine"
)

// agentFile decodes the Troupe extension form of an agent action, whose
// with block names an agent file (package agent) instead of declaring an
// agent: {from_declaration: agents/x.yaml, input: "${state.message}"},
// with optional inputs for the agent's system prompt.
func (d *decoder) agentFile(path string, n *node, a *Action) {
	f := d.fields(path, n, extraForbid, "from_declaration", "input", "inputs")
	a.FromDeclaration = d.str(join(path, "from_declaration"), f["from_declaration"])
	a.With = map[string]any{}
	if v, ok := d.required(path, f, "input"); ok {
		a.With["input"] = d.str(join(path, "input"), v)
	}
	if in := d.exprMap(join(path, "inputs"), f["inputs"], "agent file inputs"); in != nil {
		a.With["inputs"] = in
	}
}

// agentFileWith is the with block an agent-file action is written back as.
func agentFileWith(a *Action) map[string]any {
	w := map[string]any{"from_declaration": a.FromDeclaration}
	for _, k := range []string{"input", "inputs"} {
		if v, ok := a.With[k]; ok {
			w[k] = v
		}
	}
	return w
}

// engineTools shows the engine's tools to package agent.
type engineTools struct{ e *Engine }

// Get finds a registered tool.
func (t engineTools) Get(name string) (action.Tool, bool) { return t.e.tool(name) }

// Names lists the registered tools, sorted.
func (t engineTools) Names() []string {
	t.e.mu.RLock()
	defer t.e.mu.RUnlock()
	names := make([]string, 0, len(t.e.tools))
	for n := range t.e.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// compileAgentFile runs an agent file: each run of the method plays one
// turn of a new session with the rendered input, and outputs the answer.
// The file is read and validated (with the engine's tools) when the flow is
// compiled, confined to the flow's folder and WithFileRoots, so its problems
// stop the run before any method runs.
func (e *Engine) compileAgentFile(def *Definition, a *Action) (execFn, error) {
	with, err := e.compileWith(a.With)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("agent file %q", a.FromDeclaration)
	adef, err := e.loadAgentFile(def, a.FromDeclaration)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return func(ctx context.Context, r *run, sc *scope, _ any) (any, error) {
		in, err := r.render(ctx, with, sc)
		if err != nil {
			return nil, err
		}
		rendered, _ := in.(map[string]any)
		text, ok := rendered["input"].(string)
		if !ok {
			return nil, fmt.Errorf("%s: input must render to a string", where)
		}
		inputs, _ := rendered["inputs"].(map[string]any)
		m, err := e.model(ctx, &LLMConfig{Model: adef.Model.ModelName, MaxTokens: nonZero(adef.Model.MaxTokens)})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		// Model and tool calls pass through the engine's interceptors, and
		// the steps are reported, as those of the flow's own agents are.
		opts := r.agentOptions(ctx, sc.method)
		cfg := agent.Config{Model: m, Tools: engineTools{e}, Intercept: opts.Intercept}
		report := newStepReporter(opts.Observer, adef.Name)
		cfg.Observer = report.step
		runner, err := agent.NewRunner(adef, cfg)
		if err != nil {
			return nil, err
		}
		report.emit(action.Event{Kind: action.EventAgentStarted, Agent: adef.Name}, 0)
		res, err := runner.Turn(ctx, runner.NewSession("", inputs), text)
		if err != nil {
			report.emit(action.Event{Kind: action.EventAgentError, Agent: adef.Name, Err: err}, 1)
			return nil, err
		}
		report.emit(action.Event{Kind: action.EventAgentCompleted, Agent: adef.Name, Result: res.Answer, Usage: res.Usage}, 1)
		r.addUsage(res.Usage)
		if res.Status == agent.StatusPaused {
			return nil, errors.New(where + ": a tool call needs approval, which an agent run from a flow cannot ask for yet")
		}
		return res.Answer, nil
	}, nil
}

// loadAgentFile reads and validates the agent file rel, relative to the
// flow's folder and confined to it and the engine's WithFileRoots.
func (e *Engine) loadAgentFile(def *Definition, rel string) (*agent.Definition, error) {
	base, err := fileBase(def)
	if err != nil {
		return nil, err
	}
	dirs, err := confine.New(base, e.fileRoots...)
	if err != nil {
		return nil, err
	}
	path, err := dirs.Resolve(rel)
	if err != nil {
		return nil, fileRootsHint(err)
	}
	return agent.Load(path, agent.WithTools(engineTools{e}))
}

func nonZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// stepReporter turns the steps of an agent-file run into action events
// for the run's observer: an agent_execution_started event (id 1) and, under
// it, one event per step. Steps may come from concurrent tool calls; the
// observer gets them one at a time.
type stepReporter struct {
	obs   action.Observer
	agent string
	mu    *sync.Mutex
	id    *int64
}

func newStepReporter(obs action.Observer, agentName string) stepReporter {
	return stepReporter{obs: obs, agent: agentName, mu: &sync.Mutex{}, id: new(int64)}
}

func (s stepReporter) emit(ev action.Event, parent int64) {
	if s.obs == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	*s.id++
	ev.ID, ev.Parent = *s.id, parent
	s.obs(ev)
}

func (s stepReporter) step(st agent.Step) {
	if ev, ok := st.ActionEvent(); ok {
		s.emit(ev, 1)
	}
}
