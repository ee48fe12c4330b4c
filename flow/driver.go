package flow

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// A Driver runs a flow one decision at a time, for a durable-execution
// engine that performs effects elsewhere and records their order: it hands
// out the method invocations that are ready ([Driver.Ready]), takes their
// outcomes in any order ([Driver.Complete], [Driver.Fail]) and, once
// nothing is left, gives the [Driver.Result].
//
// It runs the same scheduler as [Engine.Run], with every method's action
// (and every human feedback request) turned into a [Job], and concurrent
// branches turned into coroutines run one at a time in a fixed order. So
// for a given order of completions it produces exactly the outputs, state
// and trace of the in-process run that saw its methods finish in that
// order, and replaying the same completions ([Driver.Journal],
// [Engine.RestoreDriver]) rebuilds the same run. A Driver is not safe for
// concurrent use.
type Driver struct {
	r       *run
	ctx     context.Context
	cancel  context.CancelFunc
	root    *thread
	current *thread
	// runnable lists the threads to resume, in order; pending the jobs
	// waiting for an outcome, in the order they were asked for.
	runnable  []*thread
	pending   []*Job
	cancelled []*Job
	journal   []Completion
	inline    func(Effect) bool
	seq       int
	done      bool
	err       error
}

// EffectFeedback is the kind of a [Job] that waits for a person's answer
// to a method's human feedback request.
const EffectFeedback EffectKind = "feedback"

// A Job is a method invocation (or a human feedback request) a [Driver]
// waits for.
type Job struct {
	// ID numbers the driver's jobs from 1 in the order they became ready.
	ID int
	// Effect names the invocation: Kind is EffectMethod, or EffectFeedback
	// for a feedback request; Effect.Key() is its key.
	Effect Effect
	// Trigger is the payload that triggered the method.
	Trigger any
	// Feedback is the request of an EffectFeedback job.
	Feedback *FeedbackRequest
	// Patch is the change the job's action made to the state. Run fills
	// it; an engine that ran the action elsewhere sets it before
	// Complete, which applies it.
	Patch StatePatch

	ctx   context.Context
	run   func(context.Context) (any, error)
	state *State
	th    *thread
	out   any
	err   error
	done  bool
}

// Run performs the job's action in this process, in the driver's run
// (its state and outputs). It is what an in-process worker does; a
// feedback job has no action. Cancelling ctx, or the driver cancelling
// the job, stops the action; the engine's interceptors see its model and
// tool calls under the job's effect.
func (t *Job) Run(ctx context.Context) (any, error) {
	if t.run == nil {
		return nil, fmt.Errorf("flow: job %s has no action to run", t.Effect.Key())
	}
	// The action runs in the job's own context, which carries its effect
	// scope, and stops when either context is cancelled.
	jctx, cancel := context.WithCancelCause(t.ctx)
	defer cancel(nil)
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	defer stop()
	st := t.state
	st.mu.Lock()
	before, err := jsondata.CloneMap(st.settled())
	st.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("flow: job %s: copy the state: %w", t.Effect.Key(), err)
	}
	out, err := t.run(jctx)
	if err != nil {
		return nil, err
	}
	if t.Patch, err = DiffState(before, st.Snapshot()); err != nil {
		return nil, fmt.Errorf("flow: job %s: %w", t.Effect.Key(), err)
	}
	return out, nil
}

// A Completion is one recorded outcome: the key of the job and its
// output and state patch, or its error text.
type Completion struct {
	Key    string
	Output any
	Patch  StatePatch
	Err    string
}

// A DriverOption configures a Driver.
type DriverOption func(*Driver)

// InlineJobs makes the driver run the actions of the method invocations
// f accepts itself, as soon as they are ready, instead of handing them
// out: pure expressions, for example, which need no step of their own.
func InlineJobs(f func(Effect) bool) DriverOption { return func(d *Driver) { d.inline = f } }

// NewDriver starts a run of def with the given inputs and runs it until it
// waits for its first jobs.
func (e *Engine) NewDriver(def *Definition, inputs map[string]any, opts ...DriverOption) (*Driver, error) {
	p, err := e.compile(def)
	if err != nil {
		return nil, err
	}
	for _, cm := range p.methods {
		cm.direct = false // every action goes through invoke, where the driver waits
	}
	state, id, err := p.state.initial(nil, inputs, e.logger, def.Name, e.ids)
	if err != nil {
		return nil, err
	}
	d := &Driver{}
	for _, o := range opts {
		o(d)
	}
	d.r = newRun(e, p, state, id)
	d.r.drv = d
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.root = d.spawn(func() {
		d.err = d.r.kickoff(d.ctx, 0)
		if d.err != nil && d.r.failed != nil {
			d.err = d.r.failed
		}
	}, nil)
	d.settle()
	return d, nil
}

// RestoreDriver starts a run of def and replays the recorded completions
// in their order, giving the driver the state it had when they were made.
func (e *Engine) RestoreDriver(def *Definition, inputs map[string]any, journal []Completion, opts ...DriverOption) (*Driver, error) {
	d, err := e.NewDriver(def, inputs, opts...)
	if err != nil {
		return nil, err
	}
	for i, c := range journal {
		t := d.byKey(c.Key)
		if t == nil {
			d.Stop()
			return nil, fmt.Errorf("flow: restore: completion %d: no job %s is waiting (definition or inputs changed?)", i+1, c.Key)
		}
		if c.Err != "" {
			err = d.Fail(t, errors.New(c.Err))
		} else {
			t.Patch = c.Patch
			err = d.Complete(t, c.Output)
		}
		if err != nil {
			d.Stop()
			return nil, fmt.Errorf("flow: restore: completion %d: %w", i+1, err)
		}
	}
	return d, nil
}

func (d *Driver) byKey(key string) *Job {
	for _, t := range d.pending {
		if t.Effect.Key() == key {
			return t
		}
	}
	return nil
}

// Ready returns the jobs waiting for an outcome, in the order they became
// ready: by triggering event, then in definition order.
func (d *Driver) Ready() []*Job { return append([]*Job(nil), d.pending...) }

// Cancelled returns the jobs cancelled since the last call (losers of an
// or-race, siblings of a failed method): their outcomes are no longer
// wanted, and an engine may stop their work.
func (d *Driver) Cancelled() []*Job {
	out := d.cancelled
	d.cancelled = nil
	return out
}

// Complete records job t's output and runs the flow on until it waits
// again.
func (d *Driver) Complete(t *Job, out any) error { return d.finish(t, out, nil) }

// Fail records job t's failure and runs the flow on until it waits
// again.
func (d *Driver) Fail(t *Job, err error) error {
	if err == nil {
		err = errors.New("flow: job failed")
	}
	return d.finish(t, nil, err)
}

func (d *Driver) finish(t *Job, out any, err error) error {
	if t == nil || t.done || t.th == nil {
		return fmt.Errorf("flow: the job is not waiting for an outcome")
	}
	c := Completion{Key: t.Effect.Key(), Output: out}
	if err != nil {
		c.Err = err.Error()
	} else if !t.Patch.Empty() {
		c.Patch = t.Patch
		d.r.stateHandle.Update(t.Patch.Apply)
	}
	d.journal = append(d.journal, c)
	d.resolve(t, out, err)
	d.settle()
	return nil
}

// resolve takes t off the pending list and lets its thread go on.
func (d *Driver) resolve(t *Job, out any, err error) {
	t.out, t.err, t.done = out, err, true
	for i, p := range d.pending {
		if p == t {
			d.pending = append(d.pending[:i], d.pending[i+1:]...)
			break
		}
	}
	d.runnable = append(d.runnable, t.th)
}

// Journal returns the completions recorded so far, in order: with the
// definition and inputs, all [Engine.RestoreDriver] needs.
func (d *Driver) Journal() []Completion { return append([]Completion(nil), d.journal...) }

// Done reports whether the run has finished.
func (d *Driver) Done() bool { return d.done }

// Result returns the run's result once it is done.
func (d *Driver) Result() (*Result, error) {
	if !d.done {
		return nil, fmt.Errorf("flow: the run has not finished: %d jobs are waiting", len(d.pending))
	}
	if d.err != nil {
		return nil, d.err
	}
	return d.r.result(), nil
}

// Stop abandons an unfinished run, unwinding its coroutines.
func (d *Driver) Stop() {
	d.cancel()
	for len(d.pending) > 0 {
		d.resolve(d.pending[0], nil, context.Canceled)
		d.settle()
	}
}

// thread is a branch of the run: a coroutine that runs until it waits for
// a job or for its children.
type thread struct {
	next  func() (*Job, bool)
	stop  func()
	yield func(*Job) bool
	group *group // the group the thread belongs to, nil for the root
}

// group is a set of threads a parent waits for.
type group struct {
	left   int
	waiter *thread
}

func (d *Driver) spawn(body func(), g *group) *thread {
	th := &thread{group: g}
	th.next, th.stop = iter.Pull(iter.Seq[*Job](func(yield func(*Job) bool) {
		th.yield = yield
		body()
	}))
	d.runnable = append(d.runnable, th)
	return th
}

// settle resumes threads until every one waits or has finished, then
// resolves the jobs whose context was cancelled.
func (d *Driver) settle() {
	for {
		for len(d.runnable) > 0 {
			th := d.runnable[0]
			d.runnable = d.runnable[1:]
			d.current = th
			t, ok := th.next()
			d.current = nil
			if ok {
				if t != nil {
					t.th = th
					d.pending = append(d.pending, t)
				}
				continue
			}
			if th == d.root {
				d.done = true
			} else if g := th.group; g != nil {
				if g.left--; g.left == 0 && g.waiter != nil {
					d.runnable = append(d.runnable, g.waiter)
				}
			}
		}
		cancelled := false
		for _, t := range append([]*Job(nil), d.pending...) {
			if t.ctx.Err() != nil {
				d.cancelled = append(d.cancelled, t)
				d.resolve(t, nil, context.Cause(t.ctx))
				cancelled = true
			}
		}
		if !cancelled {
			return
		}
	}
}

// await waits, in the current thread, for t's outcome.
func (d *Driver) await(ctx context.Context, t *Job) (any, error) {
	if d.inline != nil && t.run != nil && d.inline(t.Effect) {
		return t.run(ctx)
	}
	th := d.current
	if th == nil {
		return nil, fmt.Errorf("flow: driver: job %s asked for outside the driver", t.Effect.Key())
	}
	d.seq++
	t.ID, t.ctx, t.state = d.seq, ctx, d.r.stateHandle
	if !th.yield(t) {
		return nil, context.Canceled
	}
	return t.out, t.err
}

// parallel is the driver's form of run.parallel: the batch's methods run
// as child threads, started in definition order, and the current thread
// waits for all of them.
func (d *Driver) parallel(ctx context.Context, r *run, b *batch) error {
	b.r = r
	b.ctx, b.cancel = context.WithCancelCause(ctx)
	n := len(b.idx)
	b.errs = make([]error, n)
	b.wg.Add(n)
	g := &group{left: n, waiter: d.current}
	for k := range n {
		d.spawn(func() { b.run(k) }, g)
	}
	if !d.current.yield(nil) { // wait for the group
		return context.Canceled
	}
	err := r.firstError(b.errs)
	b.cancel(nil)
	r.putBatch(b)
	return err
}

// feedback waits for the answer to a human feedback request.
func (d *Driver) feedback(ctx context.Context, req *FeedbackRequest, call Effect) (string, error) {
	call.Kind = EffectFeedback
	out, err := d.await(ctx, &Job{Effect: call, Feedback: req})
	if err != nil {
		return "", err
	}
	s, ok := out.(string)
	if !ok && out != nil {
		return "", fmt.Errorf("flow: feedback for %s: got %T, want a string", call.Key(), out)
	}
	return s, nil
}

// feedbackEffect names the feedback request of the invocation of cm that
// ctx runs.
func (r *run) feedbackEffect(ctx context.Context, cm *cmethod) Effect {
	if sc, ok := ctx.Value(effectScopeKey{}).(*effectScope); ok && sc.call.Method == cm.name {
		e := sc.call
		e.Index = 1
		return e
	}
	return Effect{RunID: r.res.RunID, Flow: r.p.def.Name, Method: cm.name, Invocation: int(r.methods[cm.idx].invocations.Load()), Index: 1}
}
