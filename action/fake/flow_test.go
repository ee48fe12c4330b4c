package fake_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action/fake"
	"github.com/troupe-dev/troupe/flow"
	llmfake "github.com/troupe-dev/troupe/llm/fake"
)

const agentFlow = `schema: crewai.flow/v1
name: Orders
methods:
  answer:
    start: true
    do:
      call: agent
      with:
        role: Support
        goal: Answer questions about orders
        backstory: Knows the shop.
        tools: [lookup_order]
        input: "Where is order A-1001?"
  check:
    listen: answer
    do:
      call: tool
      ref: lookup_order
      with: {order_id: B-7}
`

// An agent and a tool action of a flow call the scripted tool; a bad call
// from the model is answered with the schema error, and the model retries.
func TestScriptedToolInAFlow(t *testing.T) {
	tools, err := fake.ParseTools([]byte(script), "tools.yaml")
	require.NoError(t, err)
	model := llmfake.New(
		llmfake.Match(`shipped`, llmfake.Text("It ships tomorrow.")),
		llmfake.Match(`do not match its schema`, llmfake.ToolCalls(llmfake.Call("lookup_order", map[string]any{"order_id": "A-1001"}))),
		llmfake.ToolCalls(llmfake.Call("lookup_order", map[string]any{"id": "A-1001"})),
	)
	def, err := flow.Parse([]byte(agentFlow), "flow.yaml")
	require.NoError(t, err)
	res, err := flow.NewEngine(flow.WithLLM(model), flow.WithTools(tools...)).Run(t.Context(), def, nil)
	require.NoError(t, err)

	assert.Equal(t, "order not found", res.Output)
	answer, err := json.Marshal(res.Outputs["answer"])
	require.NoError(t, err)
	assert.Contains(t, string(answer), "It ships tomorrow.")
	lookup := tools[0].(*fake.Tool)
	// The agent checks arguments against the tool's parameters itself, so
	// the bad call never reached the tool.
	assert.Equal(t, []string{`{"order_id":"A-1001"}`, `{"order_id":"B-7"}`}, texts(lookup.Calls()))
}

func texts(calls []json.RawMessage) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = string(c)
	}
	return out
}
