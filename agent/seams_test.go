package agent

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm/fake"
)

// stepClock moves 250ms each time it is read.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(250 * time.Millisecond)
	return c.now
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

// TestRunnerClockAndIDs checks that a runner's steps report latencies on
// Config.Clock and that sessions opened without an id take Config.NewID's.
func TestRunnerClockAndIDs(t *testing.T) {
	model := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": "A1"}))),
		fake.Text("Your order A1 is on its way."),
	)
	tools := shopTools(t, strings.Repeat("x", 500))
	def, err := Load(filepath.Join("testdata", "run_basic.yaml"), WithTools(tools))
	require.NoError(t, err)
	rec := &recorder{}
	n := 0
	r, err := NewRunner(def, Config{Model: model, Tools: tools, Observer: rec.observe, Clock: &stepClock{},
		NewID: func() string { n++; return "session-" + string(rune('0'+n)) }})
	require.NoError(t, err)
	s := r.NewSession("", map[string]any{"customer": "Ada"})
	assert.Equal(t, "session-1", s.ID)
	assert.Equal(t, "given", r.NewSession("given", nil).ID)
	_, err = r.Turn(context.Background(), s, "Where is order A1?")
	require.NoError(t, err)
	require.Equal(t, []string{"model", "tool:query_order", "model"}, rec.kinds())
	for _, st := range rec.steps {
		assert.Equal(t, int64(250), st.LatencyMS, "%s: one clock step", st.Kind)
	}
}
