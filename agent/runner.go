package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/schema"
)

// Config is what a Runner needs beyond the definition.
type Config struct {
	// Model answers the agent's model calls. Required.
	Model llm.LLM
	// Tools holds the tools the definition names. Required when it names any.
	Tools ToolRegistry
	// Observer, when set, receives each step of each turn. It may be
	// called from several goroutines at once (tool calls of one reply run
	// concurrently when the agent has no state machine).
	Observer func(Step)
	// Intercept, when set, wraps every model and tool call (see
	// action.Interceptor): to record, replay or retry them.
	Intercept action.Interceptor
	// Clock, when set, is read for the latencies steps report; nil is the
	// system clock. A durable engine gives one whose readings replay.
	Clock action.Clock
	// NewID, when set, makes the ids of sessions opened without one; nil
	// draws random ones. A durable engine gives one whose ids replay.
	NewID func() string
}

// A Runner plays turns of one agent. It is safe for concurrent use by
// turns of different sessions.
type Runner struct {
	def       *Definition
	model     llm.LLM
	tools     map[string]*boundTool
	order     []string
	prompt    *cel.Template
	events    map[string]*cel.Program
	obs       func(Step)
	intercept action.Interceptor
	clock     action.Clock
	newID     func() string
}

// boundTool is a registry tool with the agent's settings for it.
type boundTool struct {
	tool    action.Tool
	spec    llm.ToolSpec
	ref     ToolRef
	schema  *schema.Schema // nil: no declared parameters
	timeout time.Duration
}

// NewRunner prepares def to run with cfg. def comes from Load, or from a
// Builder; a definition with errors is refused.
func NewRunner(def *Definition, cfg Config) (*Runner, error) {
	if def == nil {
		return nil, errors.New("agent: nil definition")
	}
	if cfg.Model == nil {
		return nil, fmt.Errorf("agent %q: no model (set Config.Model)", def.Name)
	}
	if def.MaxSteps < 1 {
		return nil, fmt.Errorf("agent %q: max_steps must be at least 1, got %d", def.Name, def.MaxSteps)
	}
	if m := def.StateMachine; m != nil && m.state(m.Initial) == nil {
		return nil, fmt.Errorf("agent %q: the state machine's initial state %q is not one of its states", def.Name, m.Initial)
	}
	env, err := celEnv()
	if err != nil {
		return nil, err
	}
	r := &Runner{def: def, model: cfg.Model, tools: map[string]*boundTool{}, events: map[string]*cel.Program{}, obs: cfg.Observer, intercept: cfg.Intercept,
		clock: cfg.Clock, newID: cfg.NewID}
	if r.prompt, err = env.CompileTemplate(def.SystemPrompt); err != nil {
		return nil, fmt.Errorf("agent %q: system_prompt: %w", def.Name, err)
	}
	for _, ref := range def.Tools {
		if ref.Name == TransitionTool {
			return nil, fmt.Errorf("agent %q: %q is the built-in tool of state machines", def.Name, TransitionTool)
		}
		var t action.Tool
		ok := cfg.Tools != nil
		if ok {
			t, ok = cfg.Tools.Get(ref.Name)
		}
		if !ok {
			return nil, fmt.Errorf("agent %q: unknown tool %q", def.Name, ref.Name)
		}
		b := &boundTool{tool: t, spec: t.Spec(), ref: ref, timeout: ref.Timeout}
		if b.timeout == 0 {
			b.timeout = def.ToolTimeout
		}
		if b.spec.Parameters != nil {
			if b.schema, err = schema.Compile(b.spec.Parameters); err != nil {
				return nil, fmt.Errorf("agent %q: tool %q: %w", def.Name, ref.Name, err)
			}
		}
		r.tools[ref.Name] = b
		r.order = append(r.order, ref.Name)
	}
	for _, h := range def.handoffs {
		sub, err := NewRunner(h, cfg)
		if err != nil {
			return nil, err
		}
		name := HandoffPrefix + handoffName(h.File)
		b := &boundTool{tool: &handoffTool{name: name, runner: sub}, ref: ToolRef{Name: name}}
		b.spec = b.tool.Spec()
		if b.schema, err = schema.Compile(b.spec.Parameters); err != nil {
			return nil, err
		}
		r.tools[name] = b
		r.order = append(r.order, name)
	}
	if m := def.StateMachine; m != nil {
		for _, e := range m.Events {
			if e.Condition == "" {
				continue
			}
			if r.events[e.Name], err = env.Compile(e.Condition); err != nil {
				return nil, fmt.Errorf("agent %q: event %q: %w", def.Name, e.Name, err)
			}
		}
	}
	return r, nil
}

// Definition returns the runner's definition.
func (r *Runner) Definition() *Definition { return r.def }

// NewSession opens a session of the agent with the inputs its system
// prompt reads; id "" gets one from Config.NewID, else a random id.
func (r *Runner) NewSession(id string, inputs map[string]any) *Session {
	if id == "" && r.newID != nil {
		id = r.newID()
	}
	if id == "" {
		id = newID()
	}
	s := &Session{ID: id, Agent: r.def.Name, Inputs: inputs, Calls: map[string]int{}}
	if r.def.StateMachine != nil {
		s.State = r.def.StateMachine.Initial
	}
	return s
}

// A Step is one model call, tool call, transition or approval of a turn,
// as an Observer sees it.
type Step struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	// Step counts the model calls of the turn, from 1.
	Step int `json:"step"`
	// Kind is model, tool, transition, approval or retry.
	Kind      string         `json:"kind"`
	Tool      string         `json:"tool,omitempty"`
	Args      map[string]any `json:"args,omitempty"`
	Result    string         `json:"result,omitempty"`
	Error     string         `json:"error,omitempty"`
	LatencyMS int64          `json:"latency_ms"`
	Tokens    *llm.Usage     `json:"tokens,omitempty"`
	// State is the state-machine state after the step ("" without one).
	State string `json:"state,omitempty"`
}

func (r *Runner) observe(s Step) {
	if r.obs != nil {
		r.obs(s)
	}
}

// ActionEvent is the step as an action.Event, for hosts that report agent
// runs as action's loop does (flows do): a model step is an LLM call event,
// a tool or transition step a tool event. It returns false for steps with
// no such event (retries, approvals).
func (s Step) ActionEvent() (action.Event, bool) {
	ev := action.Event{Agent: s.Agent, Tool: s.Tool, Result: s.Result, Duration: time.Duration(s.LatencyMS) * time.Millisecond}
	if s.Args != nil {
		ev.Arguments, _ = json.Marshal(s.Args)
	}
	if s.Tokens != nil {
		ev.Usage = *s.Tokens
	}
	if s.Error != "" {
		ev.Err = errors.New(s.Error)
	}
	switch {
	case s.Kind == "model" && s.Error == "":
		ev.Kind = action.EventLLMCompleted
	case s.Kind == "model":
		ev.Kind = action.EventLLMFailed
	case (s.Kind == "tool" || s.Kind == "transition") && s.Error == "":
		ev.Kind = action.EventToolFinished
	case s.Kind == "tool" || s.Kind == "transition":
		ev.Kind = action.EventToolError
	default:
		return action.Event{}, false
	}
	return ev, true
}

// now returns the time on the runner's clock.
func (r *Runner) now() time.Time {
	if r.clock == nil {
		return time.Now()
	}
	return r.clock.Now()
}
