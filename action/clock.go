package action

import (
	"context"
	"time"
)

// A Clock tells the time and waits. A run reads it for the durations and
// timestamps it records and waits on it in the rate limiter and back-offs,
// so that a durable engine can make them deterministic on replay (or a
// test can make them instant). Implementations must be safe for concurrent
// use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits d or until ctx is done, returning ctx's error then.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the [Clock] of the operating system: time.Now and a
// timer. A nil Clock anywhere means SystemClock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits d on a timer or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// now returns the time on em's clock.
func (e emitter) now() time.Time {
	if e.clock == nil {
		return time.Now()
	}
	return e.clock.Now()
}

// since returns the time elapsed on em's clock since t.
func (e emitter) since(t time.Time) time.Duration { return e.now().Sub(t) }

// clockOf returns c, or SystemClock when c is nil.
func clockOf(c Clock) Clock {
	if c == nil {
		return SystemClock{}
	}
	return c
}
