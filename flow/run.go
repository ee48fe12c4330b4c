package flow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/troupe-dev/troupe/memory"
)

// run is one execution of a program.
type run struct {
	p *program
	e *Engine
	// res is the result as it is built: the state, outputs, trace, last
	// output and usage live there.
	res Result

	// mu guards the run: the data CEL reads (state and outputs) and the
	// scheduler's bookkeeping below.
	mu          sync.Mutex
	stateHandle State

	seen    []bool // the leaves of every condition, at cmethod.seenAt
	methods []methodState
	failed  error
	mem     *memory.Memory
	events  *eventLog
	// side holds what only persisted, resumed or reviewed runs need; nil
	// for the others.
	side *runSide

	// inline gives small flows their bookkeeping without more
	// allocations.
	inline struct {
		methods [inlineMethods]methodState
		seen    [inlineSeen]bool
		trace   [inlineMethods]string
	}
}

// inlineMethods and inlineSeen size the bookkeeping kept inside the run
// struct; larger flows allocate theirs.
const (
	inlineMethods = 12
	inlineSeen    = 16
)

// runSide is the part of a run that journals, replays and human feedback
// use.
type runSide struct {
	// journal records every completion for snapshots; replay holds the
	// completions of an earlier process that a resumed run reuses.
	journal  []JournalEntry
	replay   *replay
	resumed  *PendingFeedback // the pause a resumed run answers
	feedback *string          // the answer to it
	lastHF   map[string]any
	// home is where this run was saved when it paused or was resumed
	// from; its final status goes there too.
	home    Store
	pending *PendingFeedback
	saves   saver
}

func (e *Engine) run(ctx context.Context, def *Definition, inputs map[string]any, sink func(Event)) (*Result, error) {
	p, err := e.program(def)
	if err != nil {
		return nil, err
	}
	var stored map[string]any
	if p.flowStore != nil {
		stored, err = e.restore(ctx, p, inputs)
		if err != nil {
			return nil, err
		}
	}
	state, id, err := p.state.initial(stored, inputs, e.logger, def.Name)
	if err != nil {
		return nil, err
	}
	r := newRun(e, p, state, id)
	return r.start(ctx, inputs, sink)
}

// restore returns the saved state of the run whose id the inputs name, as
// CrewAI restores a flow with persistence: a run with a known id starts
// from its saved state.
func (e *Engine) restore(ctx context.Context, p *program, inputs map[string]any) (map[string]any, error) {
	id, ok := inputs["id"]
	if !ok || id == nil {
		return nil, nil
	}
	snap, err := p.flowStore.Load(ctx, fmt.Sprint(id))
	switch {
	case err == nil:
		return snap.State, nil
	case errors.Is(err, ErrNotFound):
		e.logger.InfoContext(ctx, "No flow state found for UUID: "+fmt.Sprint(id), "flow", p.def.Name)
		return nil, nil
	}
	return nil, err
}

func newRun(e *Engine, p *program, state map[string]any, id string) *run {
	n := len(p.methods)
	r := &run{p: p, e: e, mem: p.mem}
	r.res.RunID = id
	r.res.State = state
	r.res.Outputs = make(map[string]any, n)
	if n <= inlineMethods {
		r.methods = r.inline.methods[:n]
		r.res.Trace = r.inline.trace[:0]
	} else {
		r.methods = make([]methodState, n)
		r.res.Trace = make([]string, 0, n)
	}
	if p.nSeen <= inlineSeen {
		r.seen = r.inline.seen[:p.nSeen]
	} else {
		r.seen = make([]bool, p.nSeen)
	}
	r.stateHandle = State{mu: &r.mu, m: state}
	if p.side {
		r.side = new(runSide)
	}
	return r
}

// start runs the flow from its start methods and reports the outcome.
func (r *run) start(ctx context.Context, inputs map[string]any, sink func(Event)) (*Result, error) {
	def := r.p.def
	if sink != nil {
		r.events = &eventLog{sink: sink, run: r.res.RunID, flow: def.Name, suppress: def.Config.SuppressFlowEvents}
	}
	var start time.Time
	if r.events != nil || r.debug(ctx) {
		start = time.Now()
	}
	root := r.events.emit(Event{Kind: FlowStarted, Inputs: inputs})
	if r.debug(ctx) {
		r.e.logger.DebugContext(ctx, "flow started", "flow", def.Name, "run", r.res.RunID)
	}
	err := r.kickoff(ctx, root)
	r.p.state.observe(len(r.res.State))
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil && r.failed != nil {
		err = r.failed
	}
	res := r.result()
	if errors.Is(err, errPaused) {
		res.Pending = r.side.pending
		r.events.emit(Event{Kind: FlowPaused, Parent: root, Duration: time.Since(start)})
		if r.debug(ctx) {
			r.e.logger.DebugContext(ctx, "flow paused", "flow", def.Name, "run", r.res.RunID, "method", r.side.pending.Method)
		}
		return res, nil
	}
	home := r.p.flowStore
	if home == nil && r.side != nil {
		home = r.side.home
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
			r.e.logger.DebugContext(ctx, "flow failed", "flow", def.Name, "run", r.res.RunID, "error", err)
		}
		return nil, err
	}
	if !def.Config.DeferTraceFinalization {
		r.events.emit(Event{Kind: FlowFinished, Parent: root, Output: res.Output, Result: res, Duration: time.Since(start)})
	}
	if r.debug(ctx) {
		r.e.logger.DebugContext(ctx, "flow finished", "flow", def.Name, "run", r.res.RunID, "duration", time.Since(start))
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
	return &r.res
}

// debug reports whether debug logs are wanted; callers check it before
// building log arguments, which would otherwise allocate on every run.
func (r *run) debug(ctx context.Context) bool { return r.e.logger.Enabled(ctx, slog.LevelDebug) }
