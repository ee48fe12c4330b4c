package flow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/memory"
)

// run is one execution of a program.
type run struct {
	p   *program
	e   *Engine
	id  string
	res Result

	// mu guards the run: the data CEL reads (state and outputs) and the
	// scheduler's bookkeeping below.
	mu          sync.RWMutex
	state       map[string]any
	stateHandle State
	outputs     map[string]any

	seen    []bool // the leaves of every condition, at cmethod.seenAt
	methods []methodState
	trace   []string
	last    any
	failed  error
	usage   llm.Usage

	// journal records every completion for snapshots; replay holds the
	// completions of an earlier process that a resumed run reuses.
	journal  []JournalEntry
	replay   *replay
	resumed  *PendingFeedback // the pause a resumed run answers
	feedback *string          // the answer to it
	lastHF   map[string]any
	mem      *memory.Memory
	// home is where this run was saved when it paused or was resumed
	// from; its final status goes there too.
	home    Store
	pending *PendingFeedback
	saves   saver

	events *eventLog
}

func (e *Engine) run(ctx context.Context, def *Definition, inputs map[string]any, sink func(Event)) (*Result, error) {
	p, err := e.program(def)
	if err != nil {
		return nil, err
	}
	var stored map[string]any
	if id, ok := inputs["id"]; ok && id != nil && p.flowStore != nil {
		// CrewAI's restore: a run with a known id starts from its saved state.
		snap, err := p.flowStore.Load(ctx, fmt.Sprint(id))
		switch {
		case err == nil:
			stored = snap.State
		case errors.Is(err, ErrNotFound):
			e.logger.InfoContext(ctx, "No flow state found for UUID: "+fmt.Sprint(id), "flow", def.Name)
		default:
			return nil, err
		}
	}
	state, err := p.state.initial(stored, inputs, e.logger, def.Name)
	if err != nil {
		return nil, err
	}
	r := newRun(e, p, state)
	return r.start(ctx, inputs, sink)
}

func newRun(e *Engine, p *program, state map[string]any) *run {
	n := len(p.methods)
	r := &run{
		p: p, e: e,
		state:   state,
		outputs: make(map[string]any, n),
		seen:    make([]bool, p.nSeen),
		methods: make([]methodState, n),
		trace:   make([]string, 0, n),
	}
	r.id, _ = state["id"].(string)
	r.stateHandle = State{mu: &r.mu, m: r.state}
	r.mem = p.mem
	return r
}

// start runs the flow from its start methods and reports the outcome.
func (r *run) start(ctx context.Context, inputs map[string]any, sink func(Event)) (*Result, error) {
	def := r.p.def
	if sink != nil {
		r.events = &eventLog{sink: sink, run: r.id, flow: def.Name, suppress: def.Config.SuppressFlowEvents}
	}
	var start time.Time
	if r.events != nil || r.debug(ctx) {
		start = time.Now()
	}
	root := r.events.emit(Event{Kind: FlowStarted, Inputs: inputs})
	if r.debug(ctx) {
		r.e.logger.DebugContext(ctx, "flow started", "flow", def.Name, "run", r.id)
	}
	err := r.kickoff(ctx, root)
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil && r.failed != nil {
		err = r.failed
	}
	res := r.result()
	if errors.Is(err, errPaused) {
		res.Pending = r.pending
		r.events.emit(Event{Kind: FlowPaused, Parent: root, Duration: time.Since(start)})
		if r.debug(ctx) {
			r.e.logger.DebugContext(ctx, "flow paused", "flow", def.Name, "run", r.id, "method", r.pending.Method)
		}
		return res, nil
	}
	home := r.p.flowStore
	if home == nil {
		home = r.home
	}
	if home != nil {
		status := StatusCompleted
		if err != nil {
			status = StatusFailed
		}
		if serr := r.save(ctx, home, "", status); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		r.events.emit(Event{Kind: FlowFailed, Parent: root, Err: err, Duration: time.Since(start)})
		if r.debug(ctx) {
			r.e.logger.DebugContext(ctx, "flow failed", "flow", def.Name, "run", r.id, "error", err)
		}
		return nil, err
	}
	if !def.Config.DeferTraceFinalization {
		r.events.emit(Event{Kind: FlowFinished, Parent: root, Output: res.Output, Result: res, Duration: time.Since(start)})
	}
	if r.debug(ctx) {
		r.e.logger.DebugContext(ctx, "flow finished", "flow", def.Name, "run", r.id, "duration", time.Since(start))
	}
	return res, nil
}

// methodState is the scheduler's record of one method in a run.
type methodState struct {
	calls       atomic.Int32
	invocations atomic.Int32
	fired       bool // an or-listener that fired this cycle
	completed   bool
}

// result hands the run's data over to the caller; every goroutine of the
// run has returned by then, so nothing writes to it any more.
func (r *run) result() *Result {
	r.mu.RLock()
	defer r.mu.RUnlock()
	r.res = Result{RunID: r.id, Output: r.last, Outputs: r.outputs, State: r.state, Trace: r.trace, Usage: r.usage}
	return &r.res
}

// debug reports whether debug logs are wanted; callers check it before
// building log arguments, which would otherwise allocate on every run.
func (r *run) debug(ctx context.Context) bool { return r.e.logger.Enabled(ctx, slog.LevelDebug) }
