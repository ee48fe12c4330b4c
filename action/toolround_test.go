package action_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

// shuffledRound runs a round's calls on goroutines started in a random
// order, each after a random delay, and returns their outcomes by position.
func shuffledRound(seed uint64) action.ToolRound {
	return func(ctx context.Context, n int, call func(context.Context, int) action.ToolOutcome) []action.ToolOutcome {
		r := rand.New(rand.NewPCG(seed, seed))
		out := make([]action.ToolOutcome, n)
		var wg sync.WaitGroup
		for _, i := range r.Perm(n) {
			d := time.Duration(r.IntN(3)) * time.Millisecond
			wg.Go(func() {
				time.Sleep(d)
				out[i] = call(ctx, i)
			})
		}
		wg.Wait()
		return out
	}
}

// TestToolRoundResultsKeepCallOrder runs a round of five tool calls under
// rounds that finish them in different orders: the model gets the results
// in call order and every call keeps its position, whatever the schedule.
func TestToolRoundResultsKeepCallOrder(t *testing.T) {
	type seen struct {
		tool string
		pos  int
	}
	run := func(round action.ToolRound) ([]string, []seen) {
		var calls []fake.ToolCall
		for i := range 5 {
			calls = append(calls, fake.Call("search", map[string]any{"query": fmt.Sprint("q", i)}))
		}
		m := fake.New(fake.Match("results for q4", fake.Text("done")), fake.ToolCalls(calls...))
		var mu sync.Mutex
		var keys []seen
		intercept := func(ctx context.Context, c action.Call, next func(context.Context) (any, error)) (any, error) {
			if c.Kind == action.CallTool {
				mu.Lock()
				keys = append(keys, seen{string(c.ToolCall.Arguments), c.Position})
				mu.Unlock()
			}
			return next(ctx)
		}
		out, err := action.RunAgent(t.Context(), agent(m, searchTool(nil)), action.AgentTask{Input: "x"},
			&action.RunOptions{ToolRound: round, Intercept: intercept})
		require.NoError(t, err)
		require.Equal(t, "done", out.Raw)
		reqs := m.Requests()
		require.Len(t, reqs, 2)
		var results []string
		for _, msg := range reqs[1].Messages {
			if msg.Role == llm.RoleTool {
				results = append(results, msg.Text())
			}
		}
		return results, keys
	}
	want := []string{"results for q0", "results for q1", "results for q2", "results for q3", "results for q4"}
	_, seqKeys := run(action.SequentialTools)
	for name, round := range map[string]action.ToolRound{
		"sequential": action.SequentialTools, "concurrent": action.ConcurrentTools,
		"shuffled 1": shuffledRound(1), "shuffled 2": shuffledRound(2), "shuffled 3": shuffledRound(3),
	} {
		t.Run(name, func(t *testing.T) {
			results, keys := run(round)
			assert.Equal(t, want, results)
			assert.ElementsMatch(t, seqKeys, keys, "each call has the same position under every round")
		})
	}
}
