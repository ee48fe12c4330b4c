package flow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// kickoff runs the start methods concurrently, each with its chain.
func (r *run) kickoff(ctx context.Context, parent int64) error {
	starts := r.p.starts
	if len(starts) == 1 {
		return r.runStart(ctx, starts[0], parent)
	}
	b := r.takeBatch()
	b.idx, b.starts, b.parent = starts, true, parent
	return r.parallel(ctx, b)
}

// runStart runs start method i and the chain it begins.
func (r *run) runStart(ctx context.Context, i int, parent int64) error {
	return r.runListener(ctx, i, nil, parent, nil)
}

// outcomePayload is what listeners of a router outcome receive: the
// router's result or, once the run has had human feedback, the latest
// feedback result (as CrewAI does).
func (r *run) outcomePayload(out any) any {
	if r.side == nil {
		return out
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.side.lastHF != nil {
		return r.side.lastHF
	}
	return out
}

// parallel runs the methods of b concurrently and returns the first
// error; a failure cancels the others through their context.
//
// The calling goroutine claims and runs methods of the batch one after
// another, and so do helpers on the engine's workers: before running a
// method while others are unclaimed, a goroutine makes sure one helper is
// on its way, so a method that blocks (on a model, a tool, a channel)
// never holds up the rest. Methods that do not block run on the calling
// goroutine without a hand-off each.
func (r *run) parallel(ctx context.Context, b *batch) error {
	if r.drv != nil {
		return r.drv.parallel(ctx, r, b)
	}
	b.r = r
	b.ctx, b.cancel = context.WithCancelCause(ctx)
	n := len(b.idx)
	if n <= len(b.errBuf) {
		b.errs = b.errBuf[:n]
	} else {
		b.errs = make([]error, n)
	}
	b.wg.Add(n)
	b.work()
	b.wg.Wait()
	err := r.firstError(b.errs)
	b.cancel(nil)
	r.putBatch(b)
	return err
}

// takeBatch returns the run's own batch when no other batch uses it, else
// a new one.
func (r *run) takeBatch() *batch {
	if r.batchBusy.CompareAndSwap(false, true) {
		return &r.batch
	}
	return new(batch)
}

// putBatch clears b once all its methods have returned; the run's own
// batch becomes free again.
func (r *run) putBatch(b *batch) {
	if b != &r.batch {
		return
	}
	*b = batch{} // every method and helper of b has returned
	r.batchBusy.Store(false)
}

// batch is a set of methods that run concurrently: start methods, or the
// listeners of one event.
type batch struct {
	r      *run
	ctx    context.Context
	cancel context.CancelCauseFunc
	idx    []int
	starts bool
	// payload and parent are the listeners' trigger and parent event;
	// races holds the races of or-siblings among them.
	payload any
	parent  int64
	races   map[int]*race
	// next is the next method to claim; waking is set while a helper is
	// on its way; wg counts the methods not finished and the helpers not
	// gone.
	next   atomic.Int32
	waking atomic.Bool
	wg     sync.WaitGroup
	errs   []error
	// errBuf holds errs for batches of up to eight methods, which then need
	// no allocation for it (BenchmarkW2Fanout8 fans out to eight).
	errBuf [8]error
}

// work claims methods of b and runs them until none is left.
func (b *batch) work() {
	n := int32(len(b.idx))
	for {
		k := b.next.Add(1) - 1
		if k >= n {
			return
		}
		if k+1 < n {
			b.wakeHelper()
		}
		b.run(int(k))
	}
}

// wakeHelper sends a worker to help with b unless one is on its way. It is
// called while a method of b is claimed and not finished, so wg is above
// zero.
func (b *batch) wakeHelper() {
	if b.waking.CompareAndSwap(false, true) {
		b.wg.Add(1)
		b.r.e.workers.do(b)
	}
}

// help is a worker's share of b.
func (b *batch) help() {
	b.waking.Store(false)
	b.work()
	b.wg.Done()
}

// run runs the k-th method of the batch.
func (b *batch) run(k int) {
	defer b.wg.Done()
	i := b.idx[k]
	var err error
	if b.starts {
		err = b.r.runStart(b.ctx, i, b.parent)
	} else {
		err = b.r.branch(b.ctx, i, b.payload, b.parent, b.races[i])
	}
	if err != nil {
		b.errs[k] = err
		b.r.fail(err)
		if !errors.As(err, new(*BudgetError)) {
			b.cancel(err)
		}
		// A budget lets the siblings finish the step under way: they are
		// refused at their next one.
	}
}

// fail records the run's first failure; the caller cancels its siblings,
// and the error travels up to cancel theirs.
func (r *run) fail(err error) {
	r.mu.Lock()
	if r.failed == nil {
		r.failed = err
	}
	r.mu.Unlock()
}

func (r *run) firstError(errs []error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed != nil {
		return r.failed
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// trigger is an event that fire has yet to pass to plain listeners.
type trigger struct {
	from    *cmethod   // the method whose completion the event is, if any
	on      *listeners // the listeners of an outcome event
	payload any
}

// fire runs what event triggers: first the routers, one after another,
// whose outcomes become new triggers; then, for the event and each
// outcome, the plain listeners concurrently; then, for outcomes, the
// conditional starts.
//
// The event is from's completion, or, when from is nil, an outcome whose
// listeners are on.
func (r *run) fire(ctx context.Context, event string, from *cmethod, on *listeners, payload any, parent int64) error {
	if from != nil && from.onRouters == nil {
		// No router reacts to this completion: only its plain listeners.
		if from.onPlain == nil {
			return nil
		}
		return r.firePlain(ctx, from.onPlain, false, payload, parent)
	}
	var buf [2]trigger
	triggers := append(buf[:0], trigger{from: from, on: on, payload: payload})
	cur, curOn, curPayload := event, on, payload
	for cur != "" {
		var cands *targets
		switch {
		case from != nil && cur == from.name:
			cands = from.onRouters
		case curOn != nil:
			cands = curOn.routers
		}
		routers := r.triggered(cands, false)
		if len(routers) == 0 {
			break
		}
		next := ""
		for _, i := range routers {
			cm := r.p.methods[i]
			d, err := r.execute(ctx, cm, curPayload, parent, nil)
			if err != nil {
				return err
			}
			if err := r.fire(ctx, cm.name, cm, nil, d.out, parent); err != nil {
				return err
			}
			next, curOn = "", nil
			if rt := d.route; rt != nil {
				payload := r.outcomePayload(d.out)
				triggers = append(triggers, trigger{on: rt.on, payload: payload})
				next, curOn, curPayload = rt.event, rt.on, payload
			}
		}
		cur = next
	}
	for k := range triggers {
		t := &triggers[k]
		var plain *targets
		switch {
		case t.from != nil:
			plain = t.from.onPlain
		case t.on != nil:
			plain = t.on.plain
		}
		outcome := t.from == nil
		if err := r.firePlain(ctx, plain, outcome, t.payload, parent); err != nil {
			return err
		}
		if !outcome || t.on == nil {
			continue
		}
		for _, i := range r.triggered(t.on.condRuns, false) {
			cm := r.p.methods[i]
			d, err := r.execute(ctx, cm, nil, parent, nil)
			if err != nil {
				return err
			}
			if err := r.after(ctx, cm, d, parent); err != nil {
				return err
			}
		}
	}
	return nil
}

// firePlain runs the plain listeners among cands whose condition an event
// completes; outcome is set when the event is a router's outcome, which
// re-arms or-listeners.
func (r *run) firePlain(ctx context.Context, cands *targets, outcome bool, payload any, parent int64) error {
	ls := r.triggered(cands, outcome)
	switch len(ls) {
	case 0:
		return nil
	case 1:
		return r.runListener(ctx, ls[0], payload, parent, nil)
	}
	b := r.takeBatch()
	b.idx, b.payload, b.parent, b.races = ls, payload, parent, r.races(ls)
	return r.parallel(ctx, b)
}

// branch runs listener i of a concurrent batch, racing its or-siblings
// when rc is set.
func (r *run) branch(ctx context.Context, i int, payload any, parent int64, rc *race) error {
	if rc == nil {
		return r.runListener(ctx, i, payload, parent, nil)
	}
	ctx = rc.join(ctx, i)
	if err := r.runListener(ctx, i, payload, parent, rc); err != nil {
		// A racer's failure is not the run's: the next one may win.
		if r.debug(ctx) {
			r.e.logger.DebugContext(ctx, "racing method failed", "method", r.p.methods[i].name, "error", err)
		}
	}
	return nil
}

// runListener runs method i with the payload that triggered it, then what
// its completion triggers. A chain step whose only reaction is one plain
// listener runs the next method in this loop rather than one call deeper:
// deep chains (BenchmarkW5Chain1000) would otherwise grow the stack by a
// frame per method.
func (r *run) runListener(ctx context.Context, i int, payload any, parent int64, rc *race) error {
	for {
		cm := r.p.methods[i]
		d, err := r.execute(ctx, cm, payload, parent, rc)
		if err != nil {
			if errors.Is(err, errLostRace) {
				return nil
			}
			return err
		}
		rc = nil
		if cm.onRouters == nil && d.route == nil && cm.onPlain.len() == 1 {
			next := r.triggered(cm.onPlain, false)
			if len(next) == 0 {
				return nil
			}
			i, payload = next[0], d.out
			continue
		}
		return r.after(ctx, cm, d, parent)
	}
}

// after fires what a method's completion triggers: its listeners and, for
// a method that routes, its outcome.
func (r *run) after(ctx context.Context, cm *cmethod, d done, parent int64) error {
	if err := r.fire(ctx, cm.name, cm, nil, d.out, parent); err != nil {
		return err
	}
	if d.route == nil {
		return nil
	}
	return r.fire(ctx, d.route.event, nil, d.route.on, r.outcomePayload(d.out), parent)
}

// triggered marks an event for the listeners in t and returns, in
// definition order, those whose condition it completes.
func (r *run) triggered(t *targets, rearm bool) []int {
	if t == nil {
		return nil
	}
	if t.simple {
		// Listeners of exactly this event, and no fired marks to keep:
		// they all run and there is nothing to record.
		return t.idx
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for k, i := range t.idx {
		cm := r.p.methods[i]
		ms := &r.methods[i]
		if cm.orMulti {
			if rearm {
				ms.fired = false
			}
			if ms.fired {
				continue
			}
		}
		if !r.mark(cm, ms, t.leaves[k]) {
			continue
		}
		if ms.completed && !cm.start {
			// A re-run of a completed listener starts a new cycle.
			for j := range r.methods {
				r.methods[j].fired = false
			}
		}
		if cm.orMulti {
			ms.fired = true
		}
		if len(t.idx) == 1 || out == nil && k == len(t.idx)-1 {
			// The common single-listener case shares the index's slice.
			return t.idx[k : k+1]
		}
		out = append(out, i)
	}
	return out
}

// mark records leaves of cm's condition as seen and reports whether the
// condition is met, clearing them for the next cycle when it is. r.mu
// must be held.
func (r *run) mark(cm *cmethod, ms *methodState, leaves []int) bool {
	seen := r.seen[cm.seenAt : cm.seenAt+cm.nLeaves]
	for _, l := range leaves {
		if !seen[l] {
			seen[l] = true
			ms.seen++
		}
	}
	var met bool
	switch cm.flat {
	case flatAll:
		met = int(ms.seen) == cm.nLeaves
	case flatAny:
		met = ms.seen > 0
	default:
		met = cm.cond.met(seen)
	}
	if met {
		clear(seen)
		ms.seen = 0
	}
	return met
}

// outcome turns a router's result into an event. Outcomes are trimmed and,
// when the router declares emit, must be one of them (matched exactly,
// else case-insensitively, and mapped to the declared spelling).
func (r *run) outcome(cm *cmethod, out any) (done, error) {
	if out == nil {
		return done{}, nil
	}
	ev := strings.TrimSpace(eventText(out))
	if len(cm.emit) == 0 {
		return r.routed(out, ev), nil
	}
	for i, e := range cm.emit {
		if e == ev {
			return done{out: out, route: cm.routes[i]}, nil
		}
	}
	for i, e := range cm.emit {
		if strings.EqualFold(e, ev) {
			return done{out: out, route: cm.routes[i]}, nil
		}
	}
	err := &MethodError{Flow: r.p.def.Name, Method: cm.name, Err: fmt.Errorf("router %q returned %q, which is not one of its emit values %v", cm.name, ev, cm.emit)}
	return done{}, err
}
