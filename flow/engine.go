package flow

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/memory"
)

// An Engine runs definitions. It holds what a definition refers to by name
// (code handlers, tools) and what runs need (event sinks, a logger).
//
// Register handlers and tools before the first Run of a definition: a
// definition is compiled against the engine once, on first use. An Engine is
// safe for concurrent use; so is running one Definition many times at once.
type Engine struct {
	mu           sync.RWMutex
	code         map[string]Handler
	tools        map[string]action.Tool
	states       map[string]map[string]any
	scripts      bool
	python       string
	llm          llm.LLM
	models       llm.Resolver
	defaultModel string
	store        Store
	memory       *memory.Memory
	backends     map[string]Backend
	feedback     FeedbackProvider
	feedbackRefs map[string]FeedbackProvider
	logger       *slog.Logger
	onEvent      func(Event)
	env          *cel.Env
	envErr       error
	compiled     sync.Map // *Definition -> *program
	// last is the program most recently looked up, which saves the map
	// lookup when one definition runs again and again.
	last      atomic.Pointer[program]
	workers   workers
	intercept []Interceptor
	compileMu sync.Mutex
}

// An Option configures an Engine.
type Option func(*Engine)

// NewEngine returns an engine configured by opts.
func NewEngine(opts ...Option) *Engine {
	e := &Engine{
		code:         map[string]Handler{},
		tools:        map[string]action.Tool{},
		states:       map[string]map[string]any{},
		backends:     map[string]Backend{},
		feedbackRefs: map[string]FeedbackProvider{},
		logger:       slog.New(slog.DiscardHandler),
		python:       "python3",
	}
	if v := strings.ToLower(strings.TrimSpace(os.Getenv("CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION"))); v == "1" || v == "true" || v == "yes" {
		e.scripts = true
	}
	for _, o := range opts {
		o(e)
	}
	if e.env == nil && e.envErr == nil {
		e.env, e.envErr = cel.NewEnv()
	}
	return e
}

// WithCode registers a Go handler under a code ref such as
// "my_flows:Research.begin".
func WithCode(ref string, h Handler) Option {
	return func(e *Engine) { e.code[ref] = h }
}

// WithTools registers tools under their names. A tool action's ref, or an
// agent's tools entry, finds a tool by its name (or by the part of the ref
// after the last ':').
func WithTools(tools ...action.Tool) Option {
	return func(e *Engine) {
		for _, t := range tools {
			e.tools[t.Spec().Name] = t
		}
	}
}

// WithToolRef registers a tool under an explicit ref, such as CrewAI's
// "my_tools:SearchTool".
func WithToolRef(ref string, t action.Tool) Option {
	return func(e *Engine) { e.tools[ref] = t }
}

// WithStateSchema registers the JSON Schema that stands for a state model
// ref, such as CrewAI's "my_flows:CounterState" pydantic class, so pydantic
// state with that ref runs as structured state.
func WithStateSchema(ref string, jsonSchema map[string]any) Option {
	return func(e *Engine) { e.states[ref] = jsonSchema }
}

// WithScripts allows script actions, which run Python code from the
// definition in a python3 subprocess. Only enable it for trusted
// definitions. CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1 enables it too.
func WithScripts(allow bool) Option { return func(e *Engine) { e.scripts = allow } }

// WithPython sets the Python interpreter used by script actions.
func WithPython(path string) Option { return func(e *Engine) { e.python = path } }

// WithLogger sets the logger; by default nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(e *Engine) {
		if l != nil {
			e.logger = l
		}
	}
}

// WithEvents delivers every event of every run to fn, in order, one at a
// time per run. fn must not block for long: runs wait for it.
func WithEvents(fn func(Event)) Option { return func(e *Engine) { e.onEvent = fn } }

// Code registers a Go handler under a code ref. It must be called before
// the first Run of a definition that uses the ref.
func (e *Engine) Code(ref string, h Handler) {
	e.mu.Lock()
	e.code[ref] = h
	e.mu.Unlock()
}

// Tool registers a tool under a ref (and under its own name).
func (e *Engine) Tool(ref string, t action.Tool) {
	e.mu.Lock()
	e.tools[ref] = t
	e.tools[t.Spec().Name] = t
	e.mu.Unlock()
}

func (e *Engine) handler(ref string) (Handler, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	h, ok := e.code[ref]
	return h, ok
}

func (e *Engine) tool(ref string) (action.Tool, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if t, ok := e.tools[ref]; ok {
		return t, true
	}
	if i := strings.LastIndexAny(ref, ":."); i >= 0 {
		t, ok := e.tools[ref[i+1:]]
		return t, ok
	}
	return nil, false
}

// Compile prepares def for running on this engine and reports every
// unresolvable action (unregistered refs, disabled scripts) before anything
// runs. Run compiles on first use; call Compile to fail early.
func (e *Engine) Compile(def *Definition) error {
	_, err := e.program(def)
	return err
}

func (e *Engine) program(def *Definition) (*program, error) {
	if p := e.last.Load(); p != nil && p.def == def {
		return p, nil
	}
	if p, ok := e.compiled.Load(def); ok {
		e.last.Store(p.(*program))
		return p.(*program), nil
	}
	e.compileMu.Lock()
	defer e.compileMu.Unlock()
	if p, ok := e.compiled.Load(def); ok {
		return p.(*program), nil
	}
	p, err := e.compile(def)
	if err != nil {
		return nil, err
	}
	e.compiled.Store(def, p)
	return p, nil
}

// Run runs def once with inputs merged into its initial state and returns
// the result. A failing method stops the run: its siblings are cancelled
// and the error, a *MethodError, names the method. Cancelling ctx stops the
// run promptly.
func (e *Engine) Run(ctx context.Context, def *Definition, inputs map[string]any) (*Result, error) {
	return e.run(ctx, def, inputs, e.onEvent)
}
