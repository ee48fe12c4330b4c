package action_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm/fake"
)

// TestInterceptorSeesCallPositions checks that every model and tool call
// goes through the interceptor with positions that depend on the
// conversation only: parallel tool calls keep their place in the response
// whatever order they start in.
func TestInterceptorSeesCallPositions(t *testing.T) {
	m := fake.New(
		fake.Times(1, fake.Match("Task: Research AI", fake.ToolCalls(
			fake.Call("search", map[string]any{"query": "a"}),
			fake.Call("search", map[string]any{"query": "b"}),
			fake.Call("search", map[string]any{"query": "c"})))),
		fake.Match("results for", fake.Text("Done.")),
	)
	var mu sync.Mutex
	var seen []string
	ic := func(ctx context.Context, c action.Call, next func(context.Context) (any, error)) (any, error) {
		mu.Lock()
		arg := ""
		if c.ToolCall != nil {
			arg = string(c.ToolCall.Arguments)
		}
		seen = append(seen, fmt.Sprintf("%s %s turn %d pos %d %s", c.Kind, c.Name, c.Turn, c.Position, arg))
		mu.Unlock()
		return next(ctx)
	}
	spec := agent(m, searchTool(nil))
	spec.ModelName = "openai/gpt-4o-mini"
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "Research AI"}, &action.RunOptions{Intercept: ic})
	require.NoError(t, err)
	assert.Equal(t, "Done.", out.Raw)
	slices.Sort(seen)
	assert.Equal(t, []string{
		`llm openai/gpt-4o-mini turn 1 pos 0 `,
		`llm openai/gpt-4o-mini turn 2 pos 0 `,
		`tool search turn 1 pos 1 {"query":"a"}`,
		`tool search turn 1 pos 2 {"query":"b"}`,
		`tool search turn 1 pos 3 {"query":"c"}`,
	}, seen)
}

// TestToolsReportEventsUnderTheirCall checks that a tool's own events,
// reported with Report, belong to the agent's run, under the tool call.
func TestToolsReportEventsUnderTheirCall(t *testing.T) {
	reporting := action.MustNewTool("lookup", "Look something up.", func(ctx context.Context, in searchIn) (string, error) {
		action.Report(ctx, action.Event{Kind: "lookup_cache_miss", Tool: "lookup", Result: in.Query})
		return "found", nil
	})
	m := fake.New(
		fake.Times(1, fake.Match("Task: Research AI", fake.ToolCalls(fake.Call("lookup", map[string]any{"query": "AI"})))),
		fake.Match("found", fake.Text("Done.")),
	)
	rec := &recorder{}
	_, err := action.RunAgent(t.Context(), agent(m, reporting), action.AgentTask{Input: "Research AI"}, &action.RunOptions{Observer: rec.observe})
	require.NoError(t, err)
	byID := map[int64]action.Event{}
	for _, ev := range rec.events {
		byID[ev.ID] = ev
	}
	var found bool
	for _, ev := range rec.events {
		if ev.Kind == "lookup_cache_miss" {
			found = true
			assert.Equal(t, action.EventToolStarted, byID[ev.Parent].Kind)
			assert.Equal(t, "AI", ev.Result)
		}
	}
	assert.True(t, found, "the tool's event was delivered")
	assert.Zero(t, action.Report(t.Context(), action.Event{Kind: "outside"}), "outside a run nothing is reported")
}
