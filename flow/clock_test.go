package flow_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

// tickClock moves a second each time it is read and by d when it sleeps.
type tickClock struct {
	mu  sync.Mutex
	now time.Time
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
	c.now = c.now.Add(d)
	return ctx.Err()
}

// TestClockMakesEventTimesDeterministic runs one agent flow twice on a
// fresh fake clock: every event's time and duration comes from the clock,
// so the two runs record the same ones.
func TestClockMakesEventTimesDeterministic(t *testing.T) {
	type timing struct {
		kind flow.EventKind
		at   time.Time
		d    time.Duration
	}
	run := func() []timing {
		model := fake.New(fake.Reply{Match: "shipped", Text: "Done."},
			fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{"id": 5}`}}})
		lookup := action.MustNewTool("lookup", "Look up an order.", func(_ context.Context, in struct {
			ID int `json:"id"`
		}) (string, error) {
			return "shipped", nil
		})
		var ts []timing
		e := flow.NewEngine(flow.WithLLM(model), flow.WithTools(lookup),
			flow.WithClock(&tickClock{now: time.Unix(1000, 0)}),
			flow.WithEvents(func(ev flow.Event) { ts = append(ts, timing{ev.Kind, ev.Time, ev.Duration}) }))
		_, err := e.Run(context.Background(), mustParse(t, lookupAgentFlow), nil)
		require.NoError(t, err)
		return ts
	}
	first := run()
	require.NotEmpty(t, first)
	assert.Equal(t, first, run())
	for _, ts := range first {
		assert.True(t, ts.at.After(time.Unix(1000, 0)), "%s at %v is a clock reading", ts.kind, ts.at)
		assert.Zero(t, ts.d%time.Second, "%s lasted %v: whole clock ticks", ts.kind, ts.d)
	}
}
