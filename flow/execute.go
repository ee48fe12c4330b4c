package flow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/troupe-dev/troupe/store"
)

// errLostRace marks a racing method that finished after the winner; its
// result is dropped.
var errLostRace = errors.New("flow: lost the race")

// errPaused stops a run that waits for human feedback.
var errPaused = errors.New("flow: paused for human feedback")

// done is what a completed method produced: its output, and for routers
// the event it emits.
type done struct {
	out   any
	route *route // the event a router emitted, nil for other methods
}

// event returns the emitted event, "" when there is none.
func (d done) event() string {
	if d.route == nil {
		return ""
	}
	return d.route.event
}

// route is an event a router emits, with its listeners.
type route struct {
	event string
	on    *listeners // nil when the event has none
}

// routed is the result of a router that emitted event.
func (r *run) routed(out any, event string) done {
	if rt := r.p.routes[event]; rt != nil {
		return done{out: out, route: rt}
	}
	return done{out: out, route: &route{event: event}}
}

// execute runs one method: the call limit, the action (or its recorded
// output when a resumed run replays it), human feedback, then the record
// of its output and the snapshot. rc is set when the method races its
// or-siblings.
func (r *run) execute(ctx context.Context, cm *cmethod, trigger any, parent int64, rc *race) (done, error) {
	if ctx.Err() != nil {
		return done{}, context.Cause(ctx)
	}
	if !cm.start {
		if n := int(r.methods[cm.idx].calls.Add(1)); n > r.p.maxCalls {
			return done{}, &MethodError{Flow: r.p.def.Name, Method: cm.name, Err: &loopError{method: cm.name, max: r.p.maxCalls}}
		}
	}
	if r.side != nil {
		if d, ok, err := r.beforeSide(ctx, cm, rc); ok {
			return d, err
		}
	}
	var started time.Time
	var ev int64
	if r.events != nil {
		started = r.e.now()
		ev = r.methodEvent(MethodStarted, cm, parent, nil, nil, started)
		ctx = withSpan(ctx, ev, parent)
	}
	var d done
	var err error
	switch {
	case r.watched:
		d, err = r.performWatched(ctx, cm, trigger)
	case cm.direct:
		d.out, err = cm.run(ctx, r, cm.scope, trigger)
		if err == nil && cm.router {
			d, err = r.outcome(cm, d.out)
		}
	default:
		d, err = r.act(ctx, cm, trigger)
	}
	if err != nil {
		return done{}, r.methodFailed(ctx, cm, err, ev, started, rc)
	}
	d, err = r.record(ctx, cm, d, rc, false)
	if err == nil && r.events != nil {
		r.methodDone(cm, ev, d, started)
	}
	return d, err
}

// methodDone emits a method's finished event, with a router's outcome.
//
//go:noinline
func (r *run) methodDone(cm *cmethod, parent int64, d done, started time.Time) {
	r.events.emitMethod(Event{Kind: MethodFinished, Method: cm.name, Parent: parent, Output: d.out, Outcome: d.event(),
		Duration: r.e.since(started)})
}

// beforeSide is what execute does first in runs with a runSide: refuse
// the method once a budget is reached, or take its output from the journal
// a resumed run replays. ok reports that it did either.
//
//go:noinline
func (r *run) beforeSide(ctx context.Context, cm *cmethod, rc *race) (d done, ok bool, err error) {
	if r.side.budget != nil {
		if err := r.budgetCheck(cm); err != nil {
			return done{}, true, err
		}
	}
	if r.side.replay == nil {
		return done{}, false, nil
	}
	e, ok := r.replayNext(cm.name)
	if !ok {
		return done{}, false, nil
	}
	d = done{out: e.Output}
	if e.Outcome != "" {
		d = r.routed(e.Output, e.Outcome)
	}
	d, err = r.record(ctx, cm, d, rc, true)
	return d, true, err
}

// methodEvent emits a method event. It is kept out of execute so that
// execute's stack frame stays small: chains of methods nest it deeply.
//
//go:noinline
func (r *run) methodEvent(kind EventKind, cm *cmethod, parent int64, out any, err error, started time.Time) int64 {
	ev := Event{Kind: kind, Method: cm.name, Parent: parent, Output: out, Err: err}
	if kind != MethodStarted {
		ev.Duration = r.e.since(started)
	}
	return r.events.emitMethod(ev)
}

// performWatched runs cm's action in a run whose caller may stop waiting
// for it, counting the method as running meanwhile. It is kept out of
// execute, which runs the action inline otherwise: the count costs a few
// percent of a chain of Go methods (BenchmarkW1Chain10/go).
//
//go:noinline
func (r *run) performWatched(ctx context.Context, cm *cmethod, trigger any) (d done, err error) {
	running := &r.methods[cm.idx].running
	running.Add(1)
	defer running.Add(-1)
	if !cm.direct {
		return r.act(ctx, cm, trigger)
	}
	d.out, err = cm.run(ctx, r, cm.scope, trigger)
	if err == nil && cm.router {
		d, err = r.outcome(cm, d.out)
	}
	return d, err
}

// withSpan marks ctx as the work of the method whose started event is ev
// (when method events are suppressed, of its parent), so that agent and
// tool events nest under it.
//
//go:noinline
func withSpan(ctx context.Context, ev, parent int64) context.Context {
	if ev == 0 {
		ev = parent
	}
	return context.WithValue(ctx, spanKey{}, ev)
}

// methodFailed reports a method's failure and wraps it in a MethodError (a pause
// passes through as it is).
//
//go:noinline
func (r *run) methodFailed(ctx context.Context, cm *cmethod, err error, ev int64, started time.Time, rc *race) error {
	if errors.Is(err, errPaused) {
		if r.events != nil {
			r.methodEvent(MethodPaused, cm, ev, nil, nil, started)
		}
		return err
	}
	if ce := context.Cause(ctx); ce != nil && ctx.Err() != nil && !errors.Is(err, ce) && rc == nil {
		err = errors.Join(err, ce)
	}
	if r.events != nil {
		r.methodEvent(MethodFailed, cm, ev, nil, err, started)
	}
	var me *MethodError
	if errors.As(err, &me) {
		return err
	}
	return &MethodError{Flow: r.p.def.Name, Method: cm.name, Err: err}
}

func (r *run) replayNext(method string) (store.JournalEntry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.side.replay.next(method)
}

// act runs the method's action and its human feedback step.
func (r *run) act(ctx context.Context, cm *cmethod, trigger any) (done, error) {
	hf := cm.m.HumanFeedback
	if hf != nil {
		if out, feedback, ok := r.takeResumed(cm.name); ok {
			// The paused method's output was saved; only its review is left.
			return r.finishReview(ctx, cm, hf, out, feedback)
		}
	}
	out, err := r.invoke(ctx, cm, trigger)
	if err != nil {
		return done{}, err
	}
	if hf == nil {
		if !cm.router {
			return done{out: out}, nil
		}
		return r.outcome(cm, out)
	}
	return r.review(ctx, cm, hf, out)
}

// review asks for human feedback on out and turns it into the method's
// result: with emit, out routed on the outcome; without, the feedback
// result itself.
func (r *run) review(ctx context.Context, cm *cmethod, hf *HumanFeedback, out any) (done, error) {
	p, err := r.e.provider(hf)
	if err != nil {
		return done{}, err
	}
	req := &FeedbackRequest{FlowID: r.res.RunID, Flow: r.p.def.Name, Method: cm.name, Output: out, Message: hf.Message,
		Emit: hf.Emit, DefaultOutcome: hf.DefaultOutcome, Metadata: hf.Metadata}
	var feedback string
	if r.drv != nil {
		feedback, err = r.drv.feedback(ctx, req, r.feedbackEffect(ctx, cm))
	} else {
		feedback, err = p.RequestFeedback(ctx, req)
	}
	if errors.Is(err, ErrPending) {
		return done{}, r.pause(ctx, cm, hf, out)
	}
	if err != nil {
		return done{}, fmt.Errorf("human feedback: %w", err)
	}
	return r.finishReview(ctx, cm, hf, out, feedback)
}

// takeResumed returns the saved output and the answer of the pause a
// resumed run continues, once, for the paused method.
func (r *run) takeResumed(method string) (any, string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.side.resumed == nil || r.side.resumed.Method != method {
		return nil, "", false
	}
	out, feedback := r.side.resumed.Output, *r.side.feedback
	r.side.resumed, r.side.feedback = nil, nil
	return out, feedback, true
}

// finishReview turns feedback on out into the method's result.
func (r *run) finishReview(ctx context.Context, cm *cmethod, hf *HumanFeedback, out any, feedback string) (done, error) {
	outcome := r.e.feedbackOutcome(ctx, r, hf, feedback)
	res := feedbackResult(cm.name, out, feedback, outcome, hf.Metadata, r.e.now())
	r.mu.Lock()
	r.side.lastHF = res
	r.mu.Unlock()
	if outcome != nil {
		return r.routed(out, *outcome), nil
	}
	return done{out: res}, nil
}

// pause records the question and saves the run so Resume can continue it.
func (r *run) pause(ctx context.Context, cm *cmethod, hf *HumanFeedback, out any) error {
	r.mu.Lock()
	r.side.pending = &store.PendingFeedback{Method: cm.name, Message: hf.Message, Emit: hf.Emit, DefaultOutcome: hf.DefaultOutcome,
		Output: normalize(out), Metadata: hf.Metadata, RequestedAt: r.e.now().UTC()}
	r.mu.Unlock()
	st := r.p.flowStore
	if cm.persist != nil {
		st = cm.persist.store
	}
	if st == nil {
		st = r.e.defaultStore()
	}
	r.side.home = st
	if err := r.save(ctx, st, cm.name, store.StatusPaused); err != nil {
		return err
	}
	return errPaused
}

// record stores a completed method's output and saves a snapshot.
func (r *run) record(ctx context.Context, cm *cmethod, d done, rc *race, replayed bool) (done, error) {
	norm := toData(d.out)
	r.mu.Lock()
	if rc != nil && !rc.claim(cm.idx) {
		r.mu.Unlock()
		return done{}, errLostRace
	}
	if cm.persist != nil && !replayed {
		if err := r.storable(norm); err != nil {
			r.mu.Unlock()
			return done{}, &MethodError{Flow: r.p.def.Name, Method: cm.name, Err: err}
		}
	}
	r.res.Trace = append(r.res.Trace, cm.name)
	r.res.Output = d.out
	r.methods[cm.idx].completed = true
	if r.journaling() {
		r.side.journal = append(r.side.journal, store.JournalEntry{Method: cm.name, Output: norm, Outcome: d.event()})
	}
	r.res.Outputs[cm.name] = norm
	r.mu.Unlock()
	if !replayed {
		if err := r.persist(ctx, cm); err != nil {
			return done{}, &MethodError{Flow: r.p.def.Name, Method: cm.name, Err: err}
		}
	}
	return d, nil
}

// journaling reports whether completions are kept for snapshots.
func (r *run) journaling() bool { return r.p.journal }

// race lets several or-alternatives run at once: the first to finish wins
// and the others are cancelled.
type race struct {
	mu      sync.Mutex
	winner  int
	cancels map[int]context.CancelFunc
}

// races groups the methods of a batch that race for the same or-listener.
func (r *run) races(batch []int) map[int]*race {
	if !r.p.racing {
		return nil
	}
	var out map[int]*race
	for _, cm := range r.p.methods {
		if len(cm.racers) < 2 {
			continue
		}
		var members []int
		for _, i := range batch {
			if cm.racers[i] {
				members = append(members, i)
			}
		}
		if len(members) < 2 {
			continue
		}
		rc := &race{winner: -1, cancels: map[int]context.CancelFunc{}}
		if out == nil {
			out = map[int]*race{}
		}
		for _, i := range members {
			out[i] = rc
		}
	}
	return out
}

// join gives a racer its own cancellable context.
func (rc *race) join(ctx context.Context, i int) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.cancels[i] = cancel
	return ctx
}

// claim reports whether method i wins (or already won) the race, and
// cancels the losers when it does.
func (rc *race) claim(i int) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.winner == -1 {
		rc.winner = i
		for j, c := range rc.cancels {
			if j != i {
				c()
			}
		}
		return true
	}
	return rc.winner == i
}

// eventLog numbers a run's events and hands them to the sink in order.
type eventLog struct {
	mu       sync.Mutex
	seq      int64
	sink     func(Event)
	now      func() time.Time // the engine's clock
	run      string
	flow     string
	suppress bool
	closed   bool // the caller stopped waiting for the run
}

func (l *eventLog) emit(ev Event) int64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0
	}
	l.seq++
	ev.Seq, ev.RunID, ev.Flow = l.seq, l.run, l.flow
	if ev.Time.IsZero() {
		ev.Time = l.now()
	}
	l.sink(ev)
	return ev.Seq
}

// close drops every later event.
func (l *eventLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// emitMethod emits a method event unless config.suppress_flow_events is set.
func (l *eventLog) emitMethod(ev Event) int64 {
	if l == nil || l.suppress {
		return 0
	}
	return l.emit(ev)
}
