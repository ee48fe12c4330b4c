package action_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

func crewAgent(name, role string, m llm.LLM) *action.AgentSpec {
	return &action.AgentSpec{Name: name, Role: role, Goal: "Do {topic} work", Backstory: "Experienced.", Model: m}
}

func TestInterpolate(t *testing.T) {
	inputs := map[string]any{"topic": "AI", "n": int64(3), "f": 1.0, "ok": true, "none": nil,
		"list": []any{"a", int64(1)}, "map": map[string]any{"k": "v"}, "dash-ed": "x"}
	tests := []struct {
		name, text, want, err string
		inputs                map[string]any
	}{
		{name: "string", text: "Research {topic} now", want: "Research AI now"},
		{name: "python str of values", text: "{n} {f} {ok} {none} {list} {map}", want: "3 1.0 True None ['a', 1] {'k': 'v'}"},
		{name: "hyphen in name", text: "{dash-ed}", want: "x"},
		{name: "json braces untouched", text: `{"a": 1} { topic} {1x}`, want: `{"a": 1} { topic} {1x}`},
		{name: "missing key", text: "{topic} {audience}", err: "Template variable 'audience' not found in inputs dictionary"},
		{name: "no inputs leaves text", text: "{topic}", want: "{topic}", inputs: map[string]any{}},
		{name: "unsupported type", text: "{x}", inputs: map[string]any{"x": struct{}{}}, err: "unsupported input type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := inputs
			if tt.inputs != nil {
				in = tt.inputs
			}
			got, err := action.Interpolate(tt.text, in)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	var me *action.MissingInputError
	_, err := action.Interpolate("{who}", map[string]any{"x": 1})
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "who", me.Key)
}

func TestSequentialCrewContextRules(t *testing.T) {
	m := fake.New(
		fake.Match("Task: First", fake.Text("out-1")),
		fake.Match("Task: Second", fake.Text("out-2")),
		fake.Match("Task: Third", fake.Text("out-3")),
		fake.Match("Task: Fourth", fake.Text("out-4")),
	)
	spec := &action.CrewSpec{
		Name:   "c",
		Agents: []*action.AgentSpec{crewAgent("w", "Writer", m)},
		Tasks: []*action.TaskSpec{
			{Name: "one", Description: "First about {topic}", ExpectedOutput: "x", Agent: "w"},
			{Name: "two", Description: "Second", ExpectedOutput: "x", Agent: "w"},                       // nil: all earlier
			{Name: "three", Description: "Third", ExpectedOutput: "x", Agent: "w", Context: []string{}}, // none
			{Name: "four", Description: "Fourth", ExpectedOutput: "x", Agent: "w", Context: []string{"one"}},
		},
	}
	out, err := action.RunCrew(t.Context(), spec, map[string]any{"topic": "AI"}, nil)
	require.NoError(t, err)
	require.Len(t, out.TasksOutput, 4)
	assert.Equal(t, "out-4", out.Raw)
	reqs := m.Requests()
	assert.Contains(t, reqs[0].Messages[1].Text(), "First about AI")
	assert.Contains(t, reqs[0].Messages[0].Text(), "Do AI work", "agent fields are interpolated")
	assert.Contains(t, reqs[1].Messages[1].Text(), "out-1")
	assert.NotContains(t, reqs[2].Messages[1].Text(), "out-")
	user := reqs[3].Messages[1].Text()
	assert.Contains(t, user, "out-1")
	assert.NotContains(t, user, "out-2")

	var sum llm.Usage
	for _, r := range out.TasksOutput {
		sum.Add(r.Usage)
	}
	assert.Equal(t, sum, out.TokenUsage)
	assert.Equal(t, int64(4), out.TokenUsage.Requests)
	assert.Equal(t, out.TokenUsage, out.UsageByAgent["Writer"])

	mp := out.Map()
	assert.Equal(t, "out-4", mp["raw"])
	tu := mp["token_usage"].(map[string]any)
	assert.Equal(t, int64(4), tu["successful_requests"])
	first := mp["tasks_output"].([]any)[0].(map[string]any)
	assert.Equal(t, "First about AI...", first["summary"])
	assert.Equal(t, "Writer", first["agent"])
	assert.Equal(t, "raw", first["output_format"])
}

func TestCrewErrors(t *testing.T) {
	m := fake.New(fake.Text("x"))
	ok := func() *action.AgentSpec { return crewAgent("researcher", "Researcher", m) }
	tests := []struct {
		name   string
		spec   *action.CrewSpec
		inputs map[string]any
		want   string
	}{
		{"missing goal", &action.CrewSpec{Agents: []*action.AgentSpec{{Name: "researcher", Role: "R", Backstory: "b", Model: m}},
			Tasks: []*action.TaskSpec{{Description: "d", ExpectedOutput: "e", Agent: "researcher"}}},
			nil, "crew action: agents.researcher: missing required field 'goal'"},
		{"unknown agent", &action.CrewSpec{Agents: []*action.AgentSpec{ok()},
			Tasks: []*action.TaskSpec{{Description: "d", ExpectedOutput: "e", Agent: "writer"}}},
			nil, "references agent 'writer' which does not match a loaded agent definition"},
		{"future context", &action.CrewSpec{Agents: []*action.AgentSpec{ok()},
			Tasks: []*action.TaskSpec{{Name: "a", Description: "d", ExpectedOutput: "e", Agent: "researcher", Context: []string{"b"}}, {Name: "b", Description: "d", ExpectedOutput: "e", Agent: "researcher"}}},
			nil, "has context reference 'b' but that task has not been defined yet"},
		{"missing placeholder in task", &action.CrewSpec{Agents: []*action.AgentSpec{{Name: "researcher", Role: "R", Goal: "g", Backstory: "b", Model: m}},
			Tasks: []*action.TaskSpec{{Description: "About {audience}", ExpectedOutput: "e", Agent: "researcher"}}},
			map[string]any{"topic": "AI"}, "Missing required template variable 'audience' in description"},
		{"missing placeholder in agent", &action.CrewSpec{Agents: []*action.AgentSpec{ok()},
			Tasks: []*action.TaskSpec{{Description: "d", ExpectedOutput: "e", Agent: "researcher"}}},
			map[string]any{"x": "y"}, "Template variable 'topic' not found in inputs dictionary"},
		{"no tasks", &action.CrewSpec{Agents: []*action.AgentSpec{ok()}}, nil, "crew action requires a non-empty tasks list"},
		{"hierarchical without manager", &action.CrewSpec{Process: action.ProcessHierarchical, Agents: []*action.AgentSpec{ok()},
			Tasks: []*action.TaskSpec{{Description: "d", ExpectedOutput: "e"}}}, nil, "manager_llm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := action.RunCrew(t.Context(), tt.spec, tt.inputs, nil)
			require.ErrorContains(t, err, tt.want)
			var ce *action.CrewError
			assert.ErrorAs(t, err, &ce)
		})
	}
}

func TestGuardrailRetriesWithFeedback(t *testing.T) {
	m := fake.New(
		fake.Match("rejected: too short", fake.Text("a much longer answer")),
		fake.Text("short"),
	)
	tries := 0
	spec := &action.CrewSpec{
		Agents: []*action.AgentSpec{crewAgent("w", "Writer", m)},
		Tasks: []*action.TaskSpec{{Description: "Write", ExpectedOutput: "text", Agent: "w",
			Guardrails: []action.TaskGuardrail{{Func: func(ctx context.Context, out *action.TaskOutput) error {
				tries++
				if len(out.Raw) < 10 {
					return errors.New("too short")
				}
				out.Raw = strings.ToUpper(out.Raw)
				return nil
			}}}}},
	}
	rec := &recorder{}
	out, err := action.RunCrew(t.Context(), spec, nil, &action.RunOptions{Observer: rec.observe})
	require.NoError(t, err)
	assert.Equal(t, "A MUCH LONGER ANSWER", out.Raw)
	assert.Equal(t, 2, tries)
	assert.Contains(t, m.Requests()[1].Messages[1].Text(), "Previous answer:\nshort")
	assert.Equal(t, int64(2), out.TokenUsage.Requests, "both attempts are counted")
	assert.Len(t, rec.kinds(action.EventGuardrailCompleted), 2)
}

func TestGuardrailExhaustsRetries(t *testing.T) {
	m := fake.New(fake.Text("short"))
	one := 1
	spec := &action.CrewSpec{
		Agents: []*action.AgentSpec{crewAgent("w", "Writer", m)},
		Tasks: []*action.TaskSpec{{Name: "write", Description: "Write", ExpectedOutput: "text", Agent: "w", GuardrailMaxRetries: &one,
			Guardrails: []action.TaskGuardrail{{Func: func(ctx context.Context, out *action.TaskOutput) error { return errors.New("never good") }}}}},
	}
	_, err := action.RunCrew(t.Context(), spec, nil, nil)
	var ge *action.GuardrailError
	require.ErrorAs(t, err, &ge)
	assert.Contains(t, err.Error(), "failed guardrail validation after 1 retries. Last error: never good")
	assert.Equal(t, 2, m.Calls())
}

func TestLLMGuardrail(t *testing.T) {
	m := fake.New(
		fake.Match(`(?s)Task result:\nbad draft`, fake.JSON(map[string]any{"valid": false, "feedback": "mention the date"})),
		fake.Match(`(?s)Task result:\ngood draft`, fake.JSON(map[string]any{"valid": true, "feedback": nil})),
		fake.Match("mention the date", fake.Text("good draft")),
		fake.Text("bad draft"),
	)
	spec := &action.CrewSpec{
		Agents: []*action.AgentSpec{crewAgent("w", "Writer", m)},
		Tasks:  []*action.TaskSpec{{Description: "Write", ExpectedOutput: "text", Agent: "w", Guardrails: []action.TaskGuardrail{{Prompt: "The text must mention the date"}}}},
	}
	out, err := action.RunCrew(t.Context(), spec, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "good draft", out.Raw)
	assert.Equal(t, int64(4), out.TokenUsage.Requests, "two answers and two checks")
	assert.Equal(t, int64(2), out.UsageByAgent["Guardrail Agent"].Requests)
}

func TestHierarchicalDelegation(t *testing.T) {
	manager := fake.New(
		fake.Times(1, fake.Match("Task: Write a report", fake.ToolCalls(fake.Call(action.DelegateToolName,
			map[string]any{"task": "Find facts about AI", "context": "for a report", "coworker": "researcher"})))),
		fake.Match("facts: AI is big", fake.Text("Report: AI is big.")),
	)
	worker := fake.New(fake.Match("Task: Find facts about AI", fake.Text("facts: AI is big")))
	spec := &action.CrewSpec{
		Process:      action.ProcessHierarchical,
		ManagerModel: manager,
		Agents:       []*action.AgentSpec{crewAgent("r", "Researcher", worker), crewAgent("w", "Writer", worker)},
		Tasks:        []*action.TaskSpec{{Description: "Write a report", ExpectedOutput: "A report", Agent: "r"}},
	}
	out, err := action.RunCrew(t.Context(), spec, map[string]any{"topic": "AI"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Report: AI is big.", out.Raw)
	assert.Equal(t, "Crew Manager", out.TasksOutput[0].Agent)
	tools := manager.Requests()[0].Tools
	require.Len(t, tools, 2)
	assert.Contains(t, tools[0].Description, "Researcher")
	assert.NotContains(t, tools[0].Description, "Writer", "only the task's agent is a coworker")
	assert.Contains(t, worker.Requests()[0].Messages[1].Text(), "for a report")
	assert.Equal(t, int64(3), out.TokenUsage.Requests)
	assert.Equal(t, int64(1), out.UsageByAgent["Researcher"].Requests)
	assert.Equal(t, int64(2), out.UsageByAgent["Crew Manager"].Requests)
}

func TestDelegationToUnknownCoworkerIsAnObservation(t *testing.T) {
	manager := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call(action.AskToolName, map[string]any{"question": "q", "context": "c", "coworker": "Chef"}))),
		fake.Match("must be one of the following options:\n- Researcher", fake.Text("done alone")),
	)
	spec := &action.CrewSpec{
		Process: action.ProcessHierarchical, ManagerModel: manager,
		Agents: []*action.AgentSpec{crewAgent("r", "Researcher", manager)},
		Tasks:  []*action.TaskSpec{{Description: "Work", ExpectedOutput: "x"}},
	}
	out, err := action.RunCrew(t.Context(), spec, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "done alone", out.Raw)
}

func TestStructuredTaskOutput(t *testing.T) {
	m := fake.New(fake.JSON(map[string]any{"title": "T"}))
	spec := &action.CrewSpec{
		Agents: []*action.AgentSpec{crewAgent("w", "Writer", m)},
		Tasks: []*action.TaskSpec{{Description: "Write", ExpectedOutput: "x", Agent: "w",
			ResponseSchema: map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}}},
	}
	out, err := action.RunCrew(t.Context(), spec, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"title": "T"}, out.JSONDict)
	assert.Equal(t, "{'title': 'T'}", out.String())
	assert.Equal(t, "json", out.TasksOutput[0].OutputFormat)
}
