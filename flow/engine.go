package flow

import (
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/internal/lru"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/store"
)

// An Engine runs definitions. It holds what a definition refers to by name
// (code handlers, tools, guardrails), given as options to NewEngine, and
// what runs need (models, stores, event sinks, a logger).
//
// Compile turns a definition into a [Program] the caller keeps and runs;
// Run, Stream and Resume are conveniences that compile on first use and
// keep the most recently used programs in a bounded cache. An Engine is
// safe for concurrent use; so is running one Program many times at once.
type Engine struct {
	mu           sync.RWMutex
	code         map[string]Handler
	guardrails   map[string]action.Guardrail
	tools        map[string]action.Tool
	states       map[string]map[string]any
	scripts      bool
	fileRoots    []string // besides a definition's folder; see WithFileRoots
	python       string
	llm          llm.LLM
	models       llm.Resolver
	defaultModel string
	toolTimeout  time.Duration
	store        store.Store
	claims       claims
	memory       *memory.Memory
	backends     map[string]Backend
	feedback     FeedbackProvider
	feedbackRefs map[string]FeedbackProvider
	logger       *slog.Logger
	onEvent      func(Event)
	env          *cel.Env
	envErr       error
	cacheSize    int
	cache        *lru.Cache[*Definition, *Program]
	// last is the program most recently looked up, which saves the cache's
	// lock when one definition runs again and again (BenchmarkW1Chain10
	// and friends run through Engine.Run).
	last      atomic.Pointer[Program]
	workers   workers
	intercept []Interceptor
	toolRound action.ToolRound
	clock     action.Clock // see WithClock; nil: the system clock
	ids       IDSource     // see WithIDSource; nil: the program's own
	retry     *ModelRetry  // see WithModelRetries; nil: the providers retry
	// skills, skillScripts and skillNoLimits: see WithSkills,
	// WithSkillScripts and WithSkillToolLimits.
	skills        []string
	skillScripts  bool
	skillNoLimits bool
	// mcp opens agents' MCP servers; mcpServers are every agent's (see
	// WithMCP, WithMCPServers).
	mcp        mcp.Connector
	mcpServers []mcp.Server
	// budgets and prices: see WithBudget, WithPrices.
	budgets Budgets
	prices  llm.Prices
	// compileMu keeps two callers from compiling one definition at once
	// for the cache: compiling may open persistence backends.
	compileMu sync.Mutex
}

// An Option configures an Engine.
type Option func(*Engine)

// NewEngine returns an engine configured by opts.
func NewEngine(opts ...Option) *Engine {
	e := &Engine{
		code:         map[string]Handler{},
		guardrails:   map[string]action.Guardrail{},
		tools:        map[string]action.Tool{},
		states:       map[string]map[string]any{},
		backends:     map[string]Backend{},
		feedbackRefs: map[string]FeedbackProvider{},
		logger:       slog.New(slog.DiscardHandler),
		python:       "python3",
	}
	e.cacheSize = DefaultProgramCache
	for _, o := range opts {
		o(e)
	}
	if e.env == nil && e.envErr == nil {
		e.env, e.envErr = cel.Shared(cel.Limits{})
	}
	e.cache = lru.New[*Definition, *Program](e.cacheSize)
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
// definitions. It is the only switch: the engine reads no environment
// variable (CrewAI's CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION is for the host to
// read, as troupe run does).
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
// time per run. fn must not block for long: runs wait for it. Several
// WithEvents options each get every event, in the order given.
func WithEvents(fn func(Event)) Option {
	return func(e *Engine) {
		if prev := e.onEvent; prev != nil && fn != nil {
			e.onEvent = func(ev Event) { prev(ev); fn(ev) }
			return
		}
		if fn != nil {
			e.onEvent = fn
		}
	}
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

// program returns def's program from the cache, compiling and caching it
// on first use.
func (e *Engine) program(def *Definition) (*Program, error) {
	if p := e.last.Load(); p != nil && p.def == def {
		return p, nil
	}
	if p, ok := e.cache.Get(def); ok {
		e.last.Store(p)
		return p, nil
	}
	e.compileMu.Lock()
	defer e.compileMu.Unlock()
	if p, ok := e.cache.Get(def); ok {
		return p, nil
	}
	p, err := e.compile(def)
	if err != nil {
		return nil, err
	}
	p = e.cache.Add(def, p)
	e.last.Store(p)
	return p, nil
}
