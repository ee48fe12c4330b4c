package flow_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

// recordReplay is an interceptor that records the results of model and
// tool calls by effect key and, once replaying, serves them without
// calling next, as a durable engine does when it replays a run.
type recordReplay struct {
	mu     sync.Mutex
	rec    map[string]any
	replay bool
}

func (r *recordReplay) intercept(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
	if e.Kind == flow.EffectMethod {
		return next(ctx)
	}
	r.mu.Lock()
	v, ok := r.rec[e.Key()]
	r.mu.Unlock()
	if r.replay && ok {
		return v, nil
	}
	v, err := next(ctx)
	if err == nil {
		r.mu.Lock()
		r.rec[e.Key()] = v
		r.mu.Unlock()
	}
	return v, err
}

// TestReplayedCallsAreMarked runs an agent flow, then again with its model
// and tool calls served from the first run's record: the second run calls
// neither, and marks exactly their finished events Replayed.
func TestReplayedCallsAreMarked(t *testing.T) {
	rr := &recordReplay{rec: map[string]any{}}
	var toolRuns atomic.Int64
	lookup := action.MustNewTool("lookup", "Look up an order.", func(_ context.Context, in struct {
		ID int `json:"id"`
	}) (string, error) {
		toolRuns.Add(1)
		return "shipped", nil
	})
	run := func() (flow.Result, map[flow.EventKind][]bool, int) {
		model := fake.New(fake.Reply{Match: "shipped", Text: "Done."},
			fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{"id": 5}`}}})
		marks := map[flow.EventKind][]bool{}
		e := flow.NewEngine(flow.WithLLM(model), flow.WithTools(lookup), flow.WithInterceptor(rr.intercept),
			flow.WithEvents(func(ev flow.Event) {
				if ev.Kind == flow.LLMFinished || ev.Kind == flow.ToolFinished || ev.Replayed {
					marks[ev.Kind] = append(marks[ev.Kind], ev.Replayed)
				}
			}))
		res, err := e.Run(context.Background(), mustParse(t, lookupAgentFlow), map[string]any{"id": "r1"})
		require.NoError(t, err)
		return *res, marks, len(model.Requests())
	}
	first, marks, calls := run()
	assert.Equal(t, 2, calls)
	assert.Equal(t, map[flow.EventKind][]bool{flow.LLMFinished: {false, false}, flow.ToolFinished: {false}}, marks)

	rr.replay = true
	second, marks, calls := run()
	assert.Zero(t, calls, "the model is not called on replay")
	assert.Equal(t, int64(1), toolRuns.Load(), "the tool is not run on replay")
	assert.Equal(t, map[flow.EventKind][]bool{flow.LLMFinished: {true, true}, flow.ToolFinished: {true}}, marks)
	assert.Equal(t, first.Outputs, second.Outputs)
}
