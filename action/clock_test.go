package action_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm/fake"
)

// tickClock is a Clock that moves one second each time it is read and
// by d when it sleeps, recording the sleeps.
type tickClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *tickClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func (c *tickClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

// TestClockMakesDurationsDeterministic runs an agent twice on a fake clock:
// the durations its events record come from the clock, the same both
// times, and its rate limiter waits on the clock's Sleep.
func TestClockMakesDurationsDeterministic(t *testing.T) {
	run := func() ([]time.Duration, []time.Duration) {
		m := fake.New(
			fake.Times(1, fake.Match("Task: Research AI", fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI"})))),
			fake.Match("results for AI", fake.Text("AI is moving fast.")),
		)
		spec := agent(m, searchTool(nil))
		spec.MaxRPM = 1
		clock := &tickClock{now: time.Unix(0, 0)}
		rec := &recorder{}
		_, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "Research AI"}, &action.RunOptions{Observer: rec.observe, Clock: clock})
		require.NoError(t, err)
		var ds []time.Duration
		for _, e := range rec.events {
			if e.Duration != 0 {
				ds = append(ds, e.Duration)
			}
		}
		return ds, clock.slept
	}
	ds1, slept1 := run()
	ds2, slept2 := run()
	require.NotEmpty(t, ds1)
	assert.Equal(t, ds1, ds2)
	assert.Equal(t, slept1, slept2)
	require.Len(t, slept1, 1, "the second model call waits for the limiter's token on the clock")
	assert.Greater(t, slept1[0], 50*time.Second)
	for _, d := range ds1 {
		assert.Equal(t, time.Duration(0), d%time.Second, "durations are whole clock ticks: %v", d)
	}
}
