package flow

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// CancelGrace is how long Run, after its context ends, waits for the
// methods still running to return before it returns without them.
const CancelGrace = 50 * time.Millisecond

// A StillRunningError reports methods that were still running when their
// run's context ended and the grace period passed: code that ignores its
// context. Run returned without them; their goroutines finish on their own
// later, and what they produce is dropped.
type StillRunningError struct {
	Methods []string
	Cause   error // the context's cause
}

// Error names the cause and the methods.
func (e *StillRunningError) Error() string {
	return fmt.Sprintf("%v; still running after %s, not waited for: %s (a method that ignores its context.Context keeps its goroutine until it returns)",
		e.Cause, CancelGrace, strings.Join(e.Methods, ", "))
}

// Unwrap returns the context's cause.
func (e *StillRunningError) Unwrap() error { return e.Cause }

// Outcomes of a watched run, in its state word.
const (
	watchRunning int32 = iota
	watchFinished
	watchAbandoned
)

// watch drives the run on its own goroutine so that Run returns promptly
// when ctx ends, even if some method ignores ctx: after CancelGrace it
// returns a *MethodError naming the methods still running. The run then
// finishes on its own; its events are dropped and it is recycled when it
// ends. When no method is running by then, the run is finishing its own
// work (a snapshot, its final status), and watch waits for it.
func (r *run) watch(ctx context.Context, inputs map[string]any, sink func(Event)) (*Result, error) {
	r.watched = true
	var state atomic.Int32
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := r.drive(ctx, inputs, sink)
		if state.CompareAndSwap(watchRunning, watchFinished) {
			done <- outcome{res, err}
			return
		}
		r.release() // abandoned: nobody else uses the run any more
	}()
	select {
	case o := <-done:
		r.release()
		return o.res, o.err
	case <-ctx.Done():
	}
	grace := time.NewTimer(CancelGrace)
	defer grace.Stop()
	select {
	case o := <-done:
		r.release()
		return o.res, o.err
	case <-grace.C:
	}
	events := r.events
	running := r.running()
	if len(running) == 0 {
		// No method is under way: the run is doing its own closing work
		// (saving its final status, say), which a process about to exit
		// must not lose.
		o := <-done
		r.release()
		return o.res, o.err
	}
	if !state.CompareAndSwap(watchRunning, watchAbandoned) {
		o := <-done // it finished just now
		r.release()
		return o.res, o.err
	}
	events.close()
	cause := context.Cause(ctx)
	return nil, &MethodError{Flow: r.p.def.Name, Method: running[0], Err: &StillRunningError{Methods: running, Cause: cause}}
}

// running returns the names of the methods under way, in definition order.
func (r *run) running() []string {
	var names []string
	for i := range r.methods {
		if r.methods[i].running.Load() > 0 {
			names = append(names, r.p.methods[i].name)
		}
	}
	return names
}
