package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

func TestReActForModelsWithoutToolCalls(t *testing.T) {
	model := fake.New(
		fake.Times(1, fake.Text("Thought: I need the order\nAction: query_order")), // no input: unusable
		fake.Times(1, fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": "A1"}))),
		fake.Text("Thought: I know it\nFinal Answer: A1 is found."),
	).WithFunctionCalling(false).WithRecording(true)
	r := newRunner(t, "run_basic.yaml", model, nil, nil)
	s := r.NewSession("", nil)
	res, err := r.Turn(context.Background(), s, "where is A1?")
	require.NoError(t, err)
	assert.Equal(t, "A1 is found.", res.Answer)
	reqs := model.Requests()
	require.Len(t, reqs, 3)
	assert.Empty(t, reqs[0].Tools, "no native tools")
	assert.Equal(t, []string{action.ReActStop}, reqs[0].Stop)
	assert.Contains(t, reqs[0].Messages[0].Text(), "Action Input:")
	assert.InDelta(t, 0.4, *reqs[1].Temperature, 1e-9, "the unusable reply is retried at a lower temperature")
	assert.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Text(), "names an Action without an Action Input")
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	assert.Equal(t, llm.RoleUser, last.Role)
	assert.Equal(t, `Observation: {"found":true,"order_id":"A1"}`, last.Text())
	for _, m := range s.Messages {
		assert.NotEqual(t, llm.RoleTool, m.Role, "no tool messages for a model without tool calls")
	}
}
