package flow

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/store"
)

// run is one execution of a program. Runs are recycled through their
// program's pool (BenchmarkW1Chain10 makes 9 allocations a run with the
// pool, 14 without): what a run keeps for the next one are the buffers
// sized for its program; everything that belongs to one run is in its
// perRun, reset by one assignment. Everything that outlives a run (its
// Result, the State handle given to handlers and the lock they share) is
// in its runOut.
type run struct {
	perRun
	seen    []bool // the leaves of every condition, at cmethod.seenAt
	methods []methodState
	// batch serves the run's first concurrent batch at a time (saving
	// BenchmarkW2Fanout8 the batch's allocation); batchBusy is set while it
	// does.
	batch     batch
	batchBusy atomic.Bool
	// celVars are the variables of the CEL evaluation under way, which
	// holds r.mu (see eval); empty otherwise.
	celVars cel.Vars
}

// perRun is what belongs to one run.
type perRun struct {
	p *Program
	e *Engine
	// res is the result as it is built: the state, outputs, trace, last
	// output and usage live there.
	res *Result

	// mu guards the run: the data CEL reads (state and outputs) and the
	// scheduler's bookkeeping.
	mu          *sync.Mutex
	stateHandle *State

	failed error
	mem    *memory.Memory
	events *eventLog
	// side holds what only persisted, resumed or reviewed runs need; nil
	// for the others.
	side *runSide
	// watched is set when the caller may stop waiting for the run (its
	// context can be cancelled): methods then count themselves running.
	watched bool
	// drv is the Driver of a driven run, nil for the others.
	drv *Driver
}

// runOut is the part of a run that outlives it.
type runOut struct {
	res   Result
	state State
	mu    sync.Mutex
}

// traceBuf lists the trace sizes a runOut can hold inline. Holding the
// trace in the runOut's own allocation saves an allocation a run in every
// workload (BenchmarkW1Chain10: 9 allocations a run with it, 10 without;
// W2 13 against 14; W3 7 against 8). Go cannot slice an array whose length
// is a type parameter, hence newRunOut's switch.
type traceBuf interface {
	[2]string | [4]string | [6]string | [8]string | [12]string | [16]string | [24]string | [32]string
}

// tracedOut is a runOut with room for the trace of a flow of up to
// len(T) methods, so that both take one allocation.
type tracedOut[T traceBuf] struct {
	runOut
	trace T
}

// newRunOut returns a runOut whose Trace has room for n methods.
func newRunOut(n int) *runOut {
	switch {
	case n <= 2:
		o := new(tracedOut[[2]string])
		o.res.Trace = o.trace[:0]
		return &o.runOut
	case n <= 4:
		o := new(tracedOut[[4]string])
		o.res.Trace = o.trace[:0]
		return &o.runOut
	case n <= 6:
		o := new(tracedOut[[6]string])
		o.res.Trace = o.trace[:0]
		return &o.runOut
	case n <= 8:
		o := new(tracedOut[[8]string])
		o.res.Trace = o.trace[:0]
		return &o.runOut
	case n <= 12:
		o := new(tracedOut[[12]string])
		o.res.Trace = o.trace[:0]
		return &o.runOut
	case n <= 16:
		o := new(tracedOut[[16]string])
		o.res.Trace = o.trace[:0]
		return &o.runOut
	case n <= 24:
		o := new(tracedOut[[24]string])
		o.res.Trace = o.trace[:0]
		return &o.runOut
	case n <= 32:
		o := new(tracedOut[[32]string])
		o.res.Trace = o.trace[:0]
		return &o.runOut
	}
	return &runOut{res: Result{Trace: make([]string, 0, n)}}
}

// runSide is the part of a run that journals, replays and human feedback
// use.
type runSide struct {
	// journal records every completion for snapshots; replay holds the
	// completions of an earlier process that a resumed run reuses.
	journal  []store.JournalEntry
	replay   *replay
	resumed  *store.PendingFeedback // the pause a resumed run answers
	feedback *string                // the answer to it
	lastHF   map[string]any
	// home is where this run was saved when it paused or was resumed
	// from; its final status goes there too.
	home    store.Store
	pending *store.PendingFeedback
	saves   saver
	// budget is what the run spent against its budgets; nil without any.
	// It lives here, off the path of runs without a runSide, so that runs
	// without budgets pay nothing for them (BenchmarkW1Chain10).
	budget *budgetState
}

func (p *Program) run(ctx context.Context, inputs map[string]any, sink func(Event)) (*Result, error) {
	e := p.e
	if p.side {
		return e.runSaved(ctx, p, inputs, sink)
	}
	state, id, err := p.state.initial(nil, inputs, e.logger, p.def.Name, e.ids)
	if err != nil {
		return nil, err
	}
	r := newRun(e, p, state, id)
	return r.start(ctx, inputs, sink)
}

func newRun(e *Engine, p *Program, state map[string]any, id string) *run {
	n := len(p.methods)
	out := newRunOut(n)
	out.res.RunID, out.res.State, out.res.Outputs = id, state, make(map[string]any, n)
	out.state = State{mu: &out.mu, m: state}
	r := p.spare.Swap(nil)
	if r == nil {
		r, _ = p.runs.Get().(*run)
	}
	if r == nil {
		r = &run{methods: make([]methodState, n), seen: make([]bool, p.nSeen)}
	}
	r.perRun = perRun{p: p, e: e, mem: p.mem, res: &out.res, mu: &out.mu, stateHandle: &out.state}
	if p.side {
		r.side = new(runSide)
	}
	return r
}

// release returns r to its program's pool once its run has finished and
// nothing of it is in use.
func (r *run) release() {
	p := r.p
	clear(r.methods)
	clear(r.seen)
	r.perRun = perRun{}
	if !p.spare.CompareAndSwap(nil, r) {
		p.runs.Put(r)
	}
}

// start runs the flow from its start methods and reports the outcome.
// The run goes back to the pool only when it returns normally: after a
// panic some of its goroutines may still use it.
func (r *run) start(ctx context.Context, inputs map[string]any, sink func(Event)) (*Result, error) {
	if r.p.budgets != nil {
		if r.side == nil {
			r.side = new(runSide)
		}
		r.side.budget = newBudgetState(r.p.budgets, r.e.prices, r.e.now)
	}
	if sink != nil {
		def := r.p.def
		r.events = &eventLog{now: r.e.now, sink: sink, run: r.res.RunID, flow: def.Name, suppress: def.Config.SuppressFlowEvents}
	}
	if ctx.Done() != nil {
		return r.watch(ctx, inputs, sink)
	}
	res, err := r.drive(ctx, inputs, sink)
	r.release()
	return res, err
}

func (r *run) drive(ctx context.Context, inputs map[string]any, sink func(Event)) (*Result, error) {
	def := r.p.def
	debug := r.debug(ctx)
	var start time.Time
	var root int64
	if r.events != nil || debug {
		start = r.e.now()
		root = r.events.emit(Event{Kind: FlowStarted, Inputs: inputs})
	}
	if debug {
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
		r.ended(ctx, Event{Kind: FlowPaused, Parent: root}, start, debug, "flow paused", "method", r.side.pending.Method)
		return res, nil
	}
	home := r.p.flowStore
	if home == nil && r.side != nil {
		home = r.side.home
	}
	if home != nil {
		status := store.StatusCompleted
		if err != nil {
			status = store.StatusFailed
		}
		if serr := r.save(ctx, home, "", status); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		r.ended(ctx, Event{Kind: FlowFailed, Parent: root, Err: err}, start, debug, "flow failed", "error", err)
		if b := r.budget(); b != nil && errors.As(err, new(*BudgetError)) {
			// What ran before the budget stopped the run, with the usage
			// of every model call (a stopped agent reports none itself).
			res.Usage = b.spent()
			return res, err
		}
		return nil, err
	}
	if r.events == nil && !debug {
		return res, nil
	}
	ev := Event{Kind: FlowFinished, Parent: root, Output: res.Output, Result: res}
	if def.Config.DeferTraceFinalization {
		ev = Event{} // no flow_finished event: the host finalizes the trace
	}
	r.ended(ctx, ev, start, debug, "flow finished", "", nil)
	return res, nil
}

// ended emits the run's last event (unless ev has no kind) and, when
// debug logs are on, logs msg with the run's duration and key and value
// (unless key is empty). Runs with neither events nor debug logs skip
// it, and with it the clock.
func (r *run) ended(ctx context.Context, ev Event, start time.Time, debug bool, msg, key string, value any) {
	if r.events == nil && !debug {
		return
	}
	if ev.Kind != "" {
		ev.Duration = r.e.since(start)
		r.events.emit(ev)
	}
	if !debug {
		return
	}
	d := r.e.since(start)
	if key == "" {
		r.e.logger.DebugContext(ctx, msg, "flow", r.p.def.Name, "run", r.res.RunID, "duration", d)
		return
	}
	r.e.logger.DebugContext(ctx, msg, "flow", r.p.def.Name, "run", r.res.RunID, key, value, "duration", d)
}

// methodState is the scheduler's record of one method in a run.
type methodState struct {
	calls       atomic.Int32
	invocations atomic.Int32
	running     atomic.Int32 // runs of the method under way, in watched runs
	fired       bool         // an or-listener that fired this cycle
	completed   bool
	seen        int32 // leaves of its condition seen this cycle
}

// result hands the run's data over to the caller; every goroutine of the
// run has returned by then, so nothing writes to it any more.
func (r *run) result() *Result {
	return r.res
}

// debug reports whether debug logs are wanted; callers check it before
// building log arguments, which would otherwise allocate on every run.
func (r *run) debug(ctx context.Context) bool { return r.e.logger.Enabled(ctx, slog.LevelDebug) }
