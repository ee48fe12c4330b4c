package flow

import (
	"time"

	"github.com/troupe-dev/troupe/action"
)

// WithClock makes runs read c for the timings and timestamps they record
// (event times and durations, budget wall time, feedback and snapshot
// times) and wait on it (agents' rate limiters). A durable engine gives a
// clock whose readings are recorded, so that a replayed run sees the same
// times; tests give one that makes them fixed. The default is the
// [action.SystemClock]. Claim leases keep the system clock: they bound
// real time between processes.
func WithClock(c action.Clock) Option { return func(e *Engine) { e.clock = c } }

// now returns the time on the engine's clock.
func (e *Engine) now() time.Time {
	if e.clock == nil {
		return time.Now()
	}
	return e.clock.Now()
}

// since returns the time elapsed on the engine's clock since t.
func (e *Engine) since(t time.Time) time.Duration { return e.now().Sub(t) }
