package action

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRateLimiterRefillsEvenly(t *testing.T) {
	now := time.Unix(0, 0)
	l := newRateLimiter(2, time.Minute) // a token every 30s, burst 2
	l.now = func() time.Time { return now }
	assert.Zero(t, l.reserve())
	assert.Zero(t, l.reserve())
	assert.Equal(t, 30*time.Second, l.reserve(), "the third request waits for one token, not a minute")
	now = now.Add(30 * time.Second)
	assert.Zero(t, l.reserve())
}

func TestRateLimiterWaitHonoursContext(t *testing.T) {
	l := newRateLimiter(1, time.Hour)
	require.NoError(t, l.wait(t.Context()))
	ctx, cancel := contextWithTimeout(t, 10*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, l.wait(ctx), ctx.Err())
}

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}
