package flow_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

func TestAgentFileAction(t *testing.T) {
	lookup := action.MustNewTool("lookup", "finds an order", func(_ context.Context, in struct {
		ID string `json:"id"`
	}) (string, error) {
		return "order " + in.ID + " shipped", nil
	})
	model := fake.New(
		fake.Match(`order A1 shipped`, fake.Text("A1 has shipped.")),
		fake.Match(`(?s)for Trailhead.*Customer says: where is A1\?`, fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "A1"}))),
	)
	def, err := flow.Load(filepath.Join("testdata", "agentfile", "flow.yaml"))
	require.NoError(t, err)
	e := flow.NewEngine(flow.WithLLM(model), flow.WithTools(lookup))
	res, err := e.Run(context.Background(), def, map[string]any{"message": "where is A1?"})
	require.NoError(t, err)
	assert.Equal(t, "A1 has shipped.", res.Output)

	// Its steps are events of the run, under the agent's.
	model.Reset()
	var kinds []string
	var started int64
	for ev, err := range e.Stream(context.Background(), def, map[string]any{"message": "where is A1?"}) {
		require.NoError(t, err)
		if ev.Agent != "helper" {
			continue
		}
		kinds = append(kinds, string(ev.Kind))
		if ev.Kind == "agent_execution_started" {
			started = ev.Seq
		} else {
			assert.Equal(t, started, ev.Parent, "%s nests under the agent", ev.Kind)
		}
	}
	assert.Equal(t, []string{"agent_execution_started", "llm_call_completed", "tool_usage_finished", "llm_call_completed", "agent_execution_completed"}, kinds)

	// The form is written back as it was read.
	out, err := def.YAML()
	require.NoError(t, err)
	assert.Contains(t, string(out), "from_declaration: agents/helper.yaml")
	assert.Contains(t, string(out), "shop: ${state.shop}")

	// An invalid agent file stops the run before any method runs.
	bad, err := flow.Load(filepath.Join("testdata", "agentfile", "bad.yaml"))
	require.NoError(t, err)
	var methods []string
	failed := false
	for ev, err := range e.Stream(context.Background(), bad, nil) {
		if err != nil {
			failed = true
			assert.Contains(t, err.Error(), `agents/bad.yaml:5:11: error: agent.tools[0]: unknown tool "lokup" (did you mean "lookup"?)`)
			break
		}
		if ev.Kind == flow.MethodStarted {
			methods = append(methods, ev.Method)
		}
	}
	assert.True(t, failed)
	assert.Empty(t, methods)

	// The file must stay inside the flow's folder.
	def, err = flow.Load(filepath.Join("testdata", "agentfile", "outside.yaml"))
	require.NoError(t, err)
	_, err = e.Run(context.Background(), def, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "move it into the flow's folder")
}

func TestAgentFileActionDiagnostics(t *testing.T) {
	src := `schema: crewai.flow/v1
name: bad
methods:
  answer:
    start: true
    do: {call: agent, with: {from_declaration: agents/helper.yaml, inputs: "${state.x"}}
`
	_, ds := flow.Check([]byte(src), "bad.yaml")
	require.True(t, ds.HasErrors())
	assert.Contains(t, ds.Error(), "methods.answer.do.with.inputs")
	assert.Contains(t, ds.Error(), `methods.answer.do.with.input: Field required [type=missing]: add "input"`)
}
