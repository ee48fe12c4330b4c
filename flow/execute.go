package flow

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errLostRace marks a racing method that finished after the winner; its
// result is dropped.
var errLostRace = errors.New("flow: lost the race")

// execute runs one method: the call limit, the action, then the record of
// its output. rc is set when the method races its or-siblings.
func (r *run) execute(ctx context.Context, cm *cmethod, trigger any, parent int64, rc *race) (any, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if !cm.start {
		r.sched.Lock()
		r.methods[cm.idx].calls++
		n := r.methods[cm.idx].calls
		r.sched.Unlock()
		if n > r.p.maxCalls {
			return nil, &MethodError{Flow: r.p.def.Name, Method: cm.name, Err: &loopError{method: cm.name, max: r.p.maxCalls}}
		}
	}
	var started time.Time
	var ev int64
	if r.events != nil {
		started = time.Now()
		ev = r.events.emitMethod(Event{Kind: MethodStarted, Method: cm.name, Parent: parent})
	}
	out, err := cm.run(ctx, r, cm.scope, trigger)
	if err != nil {
		if ce := context.Cause(ctx); ce != nil && ctx.Err() != nil && !errors.Is(err, ce) && rc == nil {
			err = errors.Join(err, ce)
		}
		if r.events != nil {
			r.events.emitMethod(Event{Kind: MethodFailed, Method: cm.name, Parent: ev, Err: err, Duration: time.Since(started)})
		}
		var me *MethodError
		if errors.As(err, &me) {
			return nil, err
		}
		return nil, &MethodError{Flow: r.p.def.Name, Method: cm.name, Err: err}
	}
	norm := normalize(out)
	r.sched.Lock()
	if rc != nil && !rc.claim(cm.idx) {
		r.sched.Unlock()
		return nil, errLostRace
	}
	r.trace = append(r.trace, cm.name)
	r.last = out
	r.methods[cm.idx].completed = true
	r.mu.Lock()
	r.outputs[cm.name] = norm
	r.mu.Unlock()
	r.sched.Unlock()
	if r.events != nil {
		r.events.emitMethod(Event{Kind: MethodFinished, Method: cm.name, Parent: ev, Output: out, Duration: time.Since(started)})
	}
	return out, nil
}

// race lets several or-alternatives run at once: the first to finish wins
// and the others are cancelled.
type race struct {
	mu      sync.Mutex
	winner  int
	cancels map[int]context.CancelFunc
}

// races groups the methods of a batch that race for the same or-listener.
func (r *run) races(batch []int) map[int]*race {
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
	run      string
	flow     string
	suppress bool
}

func (l *eventLog) emit(ev Event) int64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	ev.Seq, ev.RunID, ev.Flow = l.seq, l.run, l.flow
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	l.sink(ev)
	return ev.Seq
}

// emitMethod emits a method event unless config.suppress_flow_events is set.
func (l *eventLog) emitMethod(ev Event) int64 {
	if l == nil || l.suppress {
		return 0
	}
	return l.emit(ev)
}
