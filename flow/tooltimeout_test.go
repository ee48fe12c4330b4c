package flow_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

func TestWithToolTimeout(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Support
methods:
  answer:
    start: true
    do:
      call: agent
      with: {role: Support, goal: Answer, backstory: Helpful., tools: [lookup], input: "Where is order A1?"}
  crew:
    start: true
    do:
      call: crew
      with:
        agents:
          clerk: {role: Clerk, goal: Answer, backstory: Helpful., tools: [lookup]}
        tasks:
          - {description: "Where is order A1?", expected_output: "Where it is", agent: clerk}
`)
	tests := []struct {
		name string
		opts []flow.Option
		want time.Duration // 0: no deadline
	}{
		{"default", nil, action.DefaultToolTimeout},
		{"engine option", []flow.Option{flow.WithToolTimeout(time.Hour)}, time.Hour},
		{"no bound", []flow.Option{flow.WithToolTimeout(-1)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			left := make(chan time.Duration, 2)
			lookup := action.MustNewTool("lookup", "Look up an order.", func(ctx context.Context, in struct {
				ID string `json:"id"`
			}) (string, error) {
				var d time.Duration
				if dl, ok := ctx.Deadline(); ok {
					d = time.Until(dl)
				}
				left <- d
				return "order " + in.ID + " shipped", nil
			})
			model := fake.New(
				fake.Reply{Match: "shipped", Text: "It shipped."},
				fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: map[string]any{"id": "A1"}}}},
			)
			opts := append([]flow.Option{flow.WithLLM(model), flow.WithTools(lookup)}, tt.opts...)
			_, err := flow.NewEngine(opts...).Run(context.Background(), def, nil)
			require.NoError(t, err)
			close(left)
			n := 0
			for d := range left {
				n++
				if tt.want == 0 {
					assert.Zero(t, d, "no deadline")
					continue
				}
				assert.LessOrEqual(t, d, tt.want)
				assert.Greater(t, d, tt.want-time.Minute)
			}
			assert.Equal(t, 2, n, "the agent and the crew agent each called the tool")
		})
	}
}
