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
