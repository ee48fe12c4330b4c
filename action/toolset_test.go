package action_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

// fakeToolset opens the given tools, reporting an event of its own.
type fakeToolset struct {
	tools    []action.Tool
	err      error
	got      []action.ToolsetRequest
	released int
}

func (f *fakeToolset) OpenTools(ctx context.Context, req action.ToolsetRequest) ([]action.Tool, func(), error) {
	f.got = append(f.got, req)
	action.Report(ctx, action.Event{Kind: action.EventMCPConnectionStarted, Agent: req.Agent})
	return f.tools, func() { f.released++ }, f.err
}

func TestToolsetToolsJoinTheRun(t *testing.T) {
	ts := &fakeToolset{tools: []action.Tool{searchTool(nil)}}
	m := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI"}))),
		fake.Match("results for AI", fake.Text("done")),
	)
	spec := agent(m, addTool())
	spec.Toolsets = []action.Toolset{ts}
	rec := &recorder{}
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go", Name: "t1"}, &action.RunOptions{Observer: rec.observe})
	require.NoError(t, err)
	assert.Equal(t, "done", out.Raw)
	require.Len(t, ts.got, 1)
	assert.Equal(t, action.ToolsetRequest{Agent: "Researcher", Task: "t1", Taken: []string{"add"}}, ts.got[0])
	assert.Equal(t, 1, ts.released, "released when the run ends")
	require.Len(t, m.Requests()[0].Tools, 2, "the spec's tools and the toolset's")
	assert.Equal(t, "search", m.Requests()[0].Tools[1].Name)

	started := rec.kinds(action.EventAgentStarted)
	opened := rec.kinds(action.EventMCPConnectionStarted)
	require.Len(t, started, 1)
	require.Len(t, opened, 1)
	assert.Equal(t, started[0].ID, opened[0].Parent, "the toolset's events nest under agent_execution_started")
}

func TestToolsetErrorFailsTheRunAndReleases(t *testing.T) {
	ts := &fakeToolset{err: errors.New("server down")}
	spec := agent(fake.New(fake.Text("never")))
	spec.Toolsets = []action.Toolset{ts}
	rec := &recorder{}
	_, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, &action.RunOptions{Observer: rec.observe})
	require.ErrorContains(t, err, "server down")
	var ae *action.AgentError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 1, ts.released)
	assert.Len(t, rec.kinds(action.EventAgentError), 1)
}

func TestToolsetNameClashFailsTheRun(t *testing.T) {
	ts := &fakeToolset{tools: []action.Tool{addTool()}}
	spec := agent(fake.New(fake.Text("never")), addTool())
	spec.Toolsets = []action.Toolset{ts}
	_, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, nil)
	require.ErrorContains(t, err, `tool "add" given twice`)
	assert.Equal(t, 1, ts.released)
}

// reported is a ReportedFailure.
type reported struct{ text string }

func (r reported) Error() string       { return "remote failed: " + r.text }
func (r reported) Reason() string      { return action.FailureMCPError }
func (r reported) Observation() string { return r.text }

// checker is an ArgumentChecker whose schema the loop must not apply.
type checker struct{ calls int }

func (c *checker) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "strict", Parameters: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}
}

func (c *checker) Call(ctx context.Context, args json.RawMessage) (any, error) {
	c.calls++
	return "checked " + string(args), nil
}

func (c *checker) ChecksArguments() {}

func TestReportedFailureIsTheObservation(t *testing.T) {
	remote := &action.ToolFunc{ToolSpec: llm.ToolSpec{Name: "remote"},
		Fn: func(ctx context.Context, args json.RawMessage) (any, error) {
			return nil, reported{"no such file: a.txt"}
		}}
	m := fake.New(fake.Times(1, fake.ToolCalls(fake.Call("remote", `{}`))), fake.Text("recovered"))
	out, err := action.RunAgent(t.Context(), agent(m, remote), action.AgentTask{Input: "go"}, nil)
	require.NoError(t, err)
	require.Len(t, out.ToolFailures, 1)
	assert.Equal(t, action.FailureMCPError, out.ToolFailures[0].Reason)
	assert.Equal(t, "no such file: a.txt", m.Requests()[1].Messages[3].Text())
}

func TestArgumentCheckerSkipsTheLoopsCheck(t *testing.T) {
	c := &checker{}
	m := fake.New(fake.Times(1, fake.ToolCalls(fake.Call("strict", `{"n": null}`))), fake.Text("done"))
	out, err := action.RunAgent(t.Context(), agent(m, c), action.AgentTask{Input: "go"}, nil)
	require.NoError(t, err)
	assert.Empty(t, out.ToolFailures, "null does not fit the schema, but the tool checks for itself")
	assert.Equal(t, 1, c.calls)
}
