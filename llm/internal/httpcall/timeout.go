package httpcall

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// Timeouts bound a model call. As an option, zero takes the default and a
// negative value means no bound; once resolved by [Timeouts.ForConfig],
// zero means no bound.
type Timeouts struct {
	// Call bounds a non-streamed call, retries included, and a stream until
	// its first event.
	Call time.Duration
	// Idle bounds the silence between two events of a stream.
	Idle time.Duration
}

// ForConfig resolves t for a model configured by cfg: the call timeout is
// cfg.Timeout when set, else t.Call, else [llm.DefaultTimeout]; the idle
// timeout is t.Idle, else [llm.DefaultStreamIdleTimeout], and never more
// than the call timeout.
func (t Timeouts) ForConfig(cfg llm.Config) Timeouts {
	call := resolve(t.Call, llm.DefaultTimeout)
	if cfg.Timeout > 0 {
		call = cfg.Timeout
	}
	idle := resolve(t.Idle, llm.DefaultStreamIdleTimeout)
	if call > 0 && (idle == 0 || idle > call) {
		idle = call
	}
	return Timeouts{Call: call, Idle: idle}
}

func resolve(d, def time.Duration) time.Duration {
	switch {
	case d < 0:
		return 0
	case d == 0:
		return def
	}
	return d
}

// Bound returns ctx bounded by d (not bounded when d is 0). When d runs
// out, the context's cause is an [*llm.TimeoutError] naming the call, which
// [Call.Error] returns.
func (c Call) Bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, &llm.TimeoutError{Provider: c.Provider, Model: c.Model, After: d})
}

// Watch returns ctx watched by a [Watchdog] for a stream under t.
func (c Call) Watch(ctx context.Context, t Timeouts) (context.Context, *Watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &Watchdog{call: c, t: t, cancel: cancel}
	if t.Call > 0 {
		w.timer = time.AfterFunc(t.Call, w.fire)
	}
	return ctx, w
}

// A Watchdog ends a stream's context when the server is silent too long:
// the first event must come within the call timeout of the start (retries
// included), each later one within the idle timeout of the one before. The
// time the consumer spends on a chunk does not count. The context's cause is
// then an [*llm.TimeoutError], which [Call.Error] returns.
type Watchdog struct {
	call   Call
	t      Timeouts
	cancel context.CancelCauseFunc
	timer  *time.Timer
	seen   atomic.Bool // an event arrived: the idle timeout applies
}

func (w *Watchdog) fire() {
	if w.seen.Load() {
		w.cancel(&llm.TimeoutError{Provider: w.call.Provider, Model: w.call.Model, After: w.t.Idle, Idle: true})
		return
	}
	w.cancel(&llm.TimeoutError{Provider: w.call.Provider, Model: w.call.Model, After: w.t.Call})
}

// Beat records an event from the server: the next one is due within the
// idle timeout.
func (w *Watchdog) Beat() {
	w.seen.Store(true)
	w.arm()
}

// arm starts the idle timeout afresh (or stops the timer without one).
func (w *Watchdog) arm() {
	switch {
	case w.t.Idle <= 0:
		if w.timer != nil {
			w.timer.Stop()
		}
	case w.timer == nil:
		w.timer = time.AfterFunc(w.t.Idle, w.fire)
	default:
		w.timer.Reset(w.t.Idle)
	}
}

// Yield wraps a stream's consumer so that the time it spends on a chunk is
// not counted as the server's silence.
func (w *Watchdog) Yield(yield func(llm.Chunk, error) bool) func(llm.Chunk, error) bool {
	return func(c llm.Chunk, err error) bool {
		if err != nil {
			return yield(c, err)
		}
		if w.timer != nil {
			w.timer.Stop()
		}
		more := yield(c, nil)
		w.arm()
		return more
	}
}

// Stop releases the watchdog and its context.
func (w *Watchdog) Stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel(nil)
}
