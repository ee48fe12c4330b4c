package action

import (
	"context"
	"sync"
	"time"
)

// rateLimiter is a token bucket: up to n requests at once, refilled evenly
// over per. Unlike CrewAI's limiter, a caller over the limit waits only until
// the next token, not a whole minute.
type rateLimiter struct {
	mu     sync.Mutex
	n      float64
	every  time.Duration // time to refill one token
	tokens float64
	last   time.Time
	clock  Clock
}

// newRateLimiter returns a limiter reading and waiting on c (nil:
// SystemClock).
func newRateLimiter(n int, per time.Duration, c Clock) *rateLimiter {
	return &rateLimiter{n: float64(n), every: per / time.Duration(n), tokens: float64(n), clock: clockOf(c)}
}

// wait blocks until a request may be made or ctx ends.
func (l *rateLimiter) wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	for {
		d := l.reserve()
		if d <= 0 {
			return nil
		}
		if err := l.clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

// reserve takes a token and returns 0, or returns how long until one is
// available.
func (l *rateLimiter) reserve() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if !l.last.IsZero() {
		l.tokens += float64(now.Sub(l.last)) / float64(l.every)
		if l.tokens > l.n {
			l.tokens = l.n
		}
	}
	l.last = now
	if l.tokens >= 1 {
		l.tokens--
		return 0
	}
	return time.Duration((1 - l.tokens) * float64(l.every))
}
