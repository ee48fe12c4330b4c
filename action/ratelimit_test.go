package action

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRateLimiterRefillsEvenly(t *testing.T) {
	c := &stepClock{now: time.Unix(0, 0)}
	l := newRateLimiter(2, time.Minute, c) // a token every 30s, burst 2
	assert.Zero(t, l.reserve())
	assert.Zero(t, l.reserve())
	assert.Equal(t, 30*time.Second, l.reserve(), "the third request waits for one token, not a minute")
	c.now = c.now.Add(30 * time.Second)
	assert.Zero(t, l.reserve())
}

func TestRateLimiterWaitHonoursContext(t *testing.T) {
	l := newRateLimiter(1, time.Hour, nil)
	require.NoError(t, l.wait(t.Context()))
	ctx, cancel := contextWithTimeout(t, 10*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, l.wait(ctx), ctx.Err())
}

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}

// stepClock is a Clock whose time moves only when it sleeps.
type stepClock struct {
	now   time.Time
	slept []time.Duration
}

func (c *stepClock) Now() time.Time { return c.now }

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func TestRateLimiterWaitsOnTheClock(t *testing.T) {
	c := &stepClock{now: time.Unix(0, 0)}
	l := newRateLimiter(1, time.Minute, c)
	for range 3 {
		require.NoError(t, l.wait(t.Context()))
	}
	assert.Equal(t, []time.Duration{time.Minute, time.Minute}, c.slept, "the limiter waits on the clock, not a timer")
}
