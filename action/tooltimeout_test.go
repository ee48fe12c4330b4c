package action_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

// timedTool is a tool declaring its own call timeout.
type timedTool struct {
	action.Tool
	timeout time.Duration
}

func (t timedTool) CallTimeout() time.Duration { return t.timeout }

// probe is a tool that records the time left on its context's deadline.
type probe struct {
	left time.Duration // 0: no deadline
	seen bool
}

func (p *probe) tool() action.Tool {
	return &action.ToolFunc{
		ToolSpec: llm.ToolSpec{Name: "probe", Parameters: map[string]any{"type": "object"}},
		Fn: func(ctx context.Context, _ json.RawMessage) (any, error) {
			p.seen = true
			if dl, ok := ctx.Deadline(); ok {
				p.left = time.Until(dl)
			}
			return "probed", nil
		},
	}
}

func TestToolCallDeadline(t *testing.T) {
	tests := []struct {
		name         string
		wrap         func(action.Tool) action.Tool
		agentTimeout time.Duration
		want         time.Duration // 0: no deadline
	}{
		{"default", nil, 0, action.DefaultToolTimeout},
		{"agent", nil, time.Hour, time.Hour},
		{"agent: no bound", nil, -1, 0},
		{"tool wins over the agent", func(t action.Tool) action.Tool { return timedTool{t, 2 * time.Hour} }, time.Hour, 2 * time.Hour},
		{"tool: no bound", func(t action.Tool) action.Tool { return timedTool{t, -1} }, time.Hour, 0},
		{"tool leaves it to the agent", func(t action.Tool) action.Tool { return timedTool{t, 0} }, time.Hour, time.Hour},
		{"seen through ResultAsAnswer", func(t action.Tool) action.Tool { return action.ResultAsAnswer(timedTool{t, 2 * time.Hour}) }, 0, 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &probe{}
			tool := p.tool()
			if tt.wrap != nil {
				tool = tt.wrap(tool)
			}
			m := fake.New(fake.Times(1, fake.ToolCalls(fake.Call("probe", `{}`))), fake.Text("done"))
			spec := agent(m, tool)
			spec.ToolTimeout = tt.agentTimeout
			out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, nil)
			require.NoError(t, err)
			require.Empty(t, out.ToolFailures)
			require.True(t, p.seen, "the tool was called")
			if tt.want == 0 {
				assert.Zero(t, p.left, "no deadline")
				return
			}
			assert.LessOrEqual(t, p.left, tt.want)
			assert.Greater(t, p.left, tt.want-time.Minute, "the deadline is the timeout from the call's start")
		})
	}
}

func TestToolTimeoutEndsTheCall(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	honours := action.MustNewTool("honours", "Waits for its context", func(ctx context.Context, in searchIn) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	ignores := action.MustNewTool("ignores", "Ignores its context", func(ctx context.Context, in searchIn) (string, error) {
		<-release // finishes only when the test ends
		return "late", nil
	})
	declares := timedTool{action.MustNewTool("declares", "Declares its timeout", func(ctx context.Context, in searchIn) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}), 30 * time.Millisecond}
	tests := []struct {
		tool         string
		agentTimeout time.Duration
		after        time.Duration
	}{
		{"honours", 30 * time.Millisecond, 30 * time.Millisecond},
		{"ignores", 30 * time.Millisecond, 30 * time.Millisecond},
		{"declares", time.Hour, 30 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			m := fake.New(fake.Times(1, fake.ToolCalls(fake.Call(tt.tool, `{"query":"x"}`))), fake.Match("Error:", fake.Text("recovered")))
			spec := agent(m, honours, ignores, declares)
			spec.ToolTimeout = tt.agentTimeout
			rec := &recorder{}
			out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, &action.RunOptions{Observer: rec.observe})
			require.NoError(t, err)
			assert.Equal(t, "recovered", out.Raw)

			require.Len(t, out.ToolFailures, 1)
			f := out.ToolFailures[0]
			assert.Equal(t, action.FailureTimeout, f.Reason)
			want := fmt.Sprintf("Error: the tool %q did not finish within %s.", tt.tool, tt.after)
			assert.Equal(t, want, f.Message)
			assert.Contains(t, m.Requests()[1].Messages[3].Text(), want, "the model is told")

			evs := rec.kinds(action.EventToolError)
			require.Len(t, evs, 1)
			te, ok := errors.AsType[*action.ToolTimeoutError](evs[0].Err)
			require.True(t, ok, "want *action.ToolTimeoutError, got %T: %v", evs[0].Err, evs[0].Err)
			assert.Equal(t, action.ToolTimeoutError{Tool: tt.tool, After: tt.after}, *te)
			assert.ErrorIs(t, evs[0].Err, context.DeadlineExceeded)
			assert.Equal(t, fmt.Sprintf("action: tool %q: no result within %s (the tool call timeout)", tt.tool, tt.after), te.Error())
		})
	}
}
