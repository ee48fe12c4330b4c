package action_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

// testSession refuses the tools in deny and records its runs.
type testSession struct {
	deny    map[string]string
	started []string // agent/task of each Start
}

func (s *testSession) Start(ctx context.Context, agent, task string) {
	s.started = append(s.started, agent+"/"+task)
	action.Report(ctx, action.Event{Kind: action.EventSkillUsed, Agent: agent, Task: task, Skill: &action.SkillInfo{Name: "inline", Path: ".", Level: 2}})
}

func (s *testSession) AllowTool(name string) (bool, string) {
	if why, ok := s.deny[name]; ok {
		return false, why
	}
	return true, ""
}

// A tool call the run's session refuses does not run: the model reads the
// reason, and the refusal is a tool_usage_error with a ToolRefusedError.
func TestSessionRefusesToolCall(t *testing.T) {
	var calls atomic.Int64
	model := fake.New(
		fake.Match(`not allowed`, fake.Text("I cannot search.")),
		fake.ToolCalls(fake.Call("search", map[string]any{"query": "x"})),
	)
	spec := agent(model, searchTool(&calls))
	sess := &testSession{deny: map[string]string{"search": "tool search is not allowed while skill s is active; allowed: read"}}
	spec.Session = func() action.Session { return sess }
	rec := &recorder{}
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "find"}, &action.RunOptions{Observer: rec.observe})
	require.NoError(t, err)
	assert.Equal(t, "I cannot search.", out.Raw)
	assert.Zero(t, calls.Load())

	last := model.Requests()[1].Messages
	assert.Equal(t, "Error: tool search is not allowed while skill s is active; allowed: read", last[len(last)-1].Text())
	require.Len(t, out.ToolFailures, 1)
	assert.Equal(t, action.FailureRefused, out.ToolFailures[0].Reason)
	errs := rec.kinds(action.EventToolError)
	require.Len(t, errs, 1)
	var re *action.ToolRefusedError
	require.ErrorAs(t, errs[0].Err, &re)
	assert.Equal(t, "search", re.Tool)
}

// Each run opens its own session, started inside agent_execution_started,
// and the run's tools reach it through their context.
func TestSessionIsPerRunAndReachesTools(t *testing.T) {
	var seen []action.Session
	probe := &action.ToolFunc{ToolSpec: llm.ToolSpec{Name: "probe", Parameters: map[string]any{"type": "object"}},
		Fn: func(ctx context.Context, _ json.RawMessage) (any, error) {
			seen = append(seen, action.SessionOf(ctx))
			return "ok", nil
		}}
	model := fake.New(
		fake.Match(`(?s)Observation|"ok"|\bok\b`, fake.Text("done")),
		fake.ToolCalls(fake.Call("probe", map[string]any{})),
	)
	var opened []*testSession
	spec := agent(model, probe)
	spec.Session = func() action.Session {
		s := &testSession{}
		opened = append(opened, s)
		return s
	}
	rec := &recorder{}
	for range 2 {
		model.Reset()
		_, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go", Name: "t1"}, &action.RunOptions{Observer: rec.observe})
		require.NoError(t, err)
	}
	require.Len(t, opened, 2)
	require.Len(t, seen, 2)
	assert.Same(t, opened[0], seen[0])
	assert.Same(t, opened[1], seen[1])
	assert.Equal(t, []string{"Researcher/t1"}, opened[0].started)

	starts, used := rec.kinds(action.EventAgentStarted), rec.kinds(action.EventSkillUsed)
	require.Len(t, used, 2)
	for i := range used {
		assert.Equal(t, starts[i].ID, used[i].Parent, "a session's events nest under its run")
	}
}

// The skill section follows the agent's introduction and, for ReAct, its
// tools, as CrewAI places it.
func TestSkillPromptClosesSystemPrompt(t *testing.T) {
	for _, native := range []bool{true, false} {
		model := fake.New(fake.Text("Final Answer: hi")).WithFunctionCalling(native)
		spec := agent(model, searchTool(nil))
		spec.SkillPrompt = "\n\n<available_skills>\nX\n</available_skills>"
		_, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, nil)
		require.NoError(t, err)
		system := model.Requests()[0].Messages[0].Text()
		assert.True(t, strings.HasSuffix(system, spec.SkillPrompt), "native=%v: %q", native, system)
		if !native {
			assert.Less(t, strings.Index(system, "Tool: search"), strings.Index(system, "<available_skills>"))
		}
	}
}

// checkingTool declares an enum it does not enforce.
type checkingTool struct{ got string }

func (c *checkingTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "pick", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"v": map[string]any{"type": "string", "enum": []any{"a", "b"}}}, "required": []any{"v"}}}
}
func (c *checkingTool) ChecksArguments() {}
func (c *checkingTool) Call(_ context.Context, args json.RawMessage) (any, error) {
	c.got = string(args)
	return "no such value", nil
}

// An ArgumentChecker gets arguments its schema would refuse: it answers
// them itself.
func TestArgumentCheckerGetsUnvalidatedArguments(t *testing.T) {
	tool := &checkingTool{}
	model := fake.New(fake.Match(`no such value`, fake.Text("ok")), fake.ToolCalls(fake.Call("pick", map[string]any{"v": "zzz"})))
	_, err := action.RunAgent(t.Context(), agent(model, tool), action.AgentTask{Input: "go"}, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"v":"zzz"}`, tool.got)
}
