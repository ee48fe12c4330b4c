package flow

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// where lists a diagnostic's place and message without its line, which a
// built flow does not have.
type where struct{ Path, Code, Message string }

func places(ds Diagnostics) []where {
	out := make([]where, 0, len(ds))
	for _, d := range ds {
		out = append(out, where{d.Path, d.Code, d.Message})
	}
	return out
}

func TestBuildMatchesYAML(t *testing.T) {
	maxIter := 3
	tests := []struct {
		name  string
		yaml  string
		build *Builder
	}{
		{
			name: "chain",
			yaml: `name: ChainFlow
state: {type: dict, default: {count: 5, tags: [a, b]}}
methods:
  begin: {start: true, do: {ref: "m:ChainFlow.begin"}}
  shout: {listen: begin, do: {ref: "m:ChainFlow.shout"}}
  confirm: {listen: shout, do: {call: code, ref: "m:ChainFlow.confirm", with: {loud: "${outputs.shout}"}}}
`,
			build: New("ChainFlow").
				State(map[string]any{"count": 5, "tags": []string{"a", "b"}}).
				Method("begin", Code("m:ChainFlow.begin", nil)).Start().
				Method("shout", Code("m:ChainFlow.shout", nil)).ListenTo("begin").
				Method("confirm", Code("m:ChainFlow.confirm", map[string]any{"loud": "${outputs.shout}"})).ListenTo("shout").
				Flow(),
		},
		{
			name: "router with emit",
			yaml: `name: Route
description: Routes left or right.
methods:
  begin: {start: true, description: Starts., do: {call: expression, expr: state.direction}}
  decide:
    listen: begin
    router: true
    emit: [left, right]
    do: {call: expression, expr: "outputs.begin == 'left' ? 'left' : 'right'"}
  take_left: {listen: left, do: {call: tool, ref: search, with: {q: left}}}
  take_right: {listen: right, do: {call: script, code: "print('right')"}}
`,
			build: New("Route").Description("Routes left or right.").
				Method("begin", Expr("state.direction")).Start().Describe("Starts.").
				Method("decide", Expr("outputs.begin == 'left' ? 'left' : 'right'")).ListenTo("begin").Router("left", "right").
				Method("take_left", Tool("search", map[string]any{"q": "left"})).ListenTo("left").
				Method("take_right", Script("print('right')")).ListenTo("right").
				Flow(),
		},
		{
			name: "and or listeners and conditional start",
			yaml: `name: Merge
config: {max_method_calls: 7, stream: true}
methods:
  step: {start: retry, do: {call: expression, expr: "1"}}
  decide: {listen: step, router: true, do: {call: expression, expr: "'done'"}}
  left: {listen: {or: [decide, step]}, do: {call: expression, expr: "2"}}
  join: {listen: {and: [left, {or: [decide, done]}]}, do: {call: expression, expr: "3"}}
`,
			build: New("Merge").MaxMethodCalls(7).Config(func(c *Config) { c.Stream = true }).
				Method("step", Expr("1")).StartWhen(On("retry")).
				Method("decide", Expr("'done'")).ListenTo("step").Router().
				Method("left", Expr("2")).ListenTo("decide", "step").
				Method("join", Expr("3")).Listen(And(On("left"), Or(On("decide"), On("done")))).
				Flow(),
		},
		{
			name: "each with steps",
			yaml: `name: Rows
methods:
  rows:
    start: true
    do:
      call: each
      in: state.rows
      do:
        - {name: kind, action: {call: expression, expr: item.kind}}
        - {name: kept, if: "outputs.kind == 'keep'", action: {call: code, ref: "m:keep", with: {row: "${item}"}}}
`,
			build: New("Rows").
				Method("rows", Each("state.rows",
					NewStep("kind", Expr("item.kind")),
					NewStep("kept", Code("m:keep", map[string]any{"row": "${item}"})).When("outputs.kind == 'keep'"),
				)).Start().
				Flow(),
		},
		{
			name: "agent action",
			yaml: `name: AgentFlow
methods:
  answer:
    start: true
    do:
      call: agent
      with:
        role: Analyst
        goal: Answer
        backstory: Knows.
        llm: {model: openai/gpt-4o-mini, max_tokens: 4096}
        tools: [search, {name: fetch, timeout: 5}]
        max_iter: 3
        settings: {verbose: true}
        verbose: false
        input: "${state.question}"
`,
			build: New("AgentFlow").
				Method("answer", AgentAction(&Agent{
					Role: "Analyst", Goal: "Answer", Backstory: "Knows.",
					LLM:      &LLMConfig{Model: "openai/gpt-4o-mini", MaxTokens: new(4096)},
					Tools:    []ToolRef{{Name: "search"}, {Name: "fetch", Settings: map[string]any{"name": "fetch", "timeout": 5}}},
					MaxIter:  &maxIter,
					Settings: map[string]any{"verbose": true},
					Extra:    map[string]any{"verbose": false},
					Input:    "${state.question}",
				})).Start().
				Flow(),
		},
		{
			name: "crew actions",
			yaml: `name: CrewFlow
methods:
  research:
    start: true
    do:
      call: crew
      with:
        name: inline_research
        process: sequential
        agents:
          researcher: {role: Researcher, goal: "Research {topic}", backstory: Knows., llm: openai/gpt-4o}
        tasks:
          - {name: research_task, description: "Research {topic}", expected_output: Findings, agent: researcher}
          - {description: Summarise, expected_output: Summary, context: [research_task]}
        inputs: {audience: devs}
      inputs: {topic: "${state.topic}"}
  referenced:
    listen: research
    do: {call: crew, from_declaration: crews/research, inputs: {topic: AI}}
`,
			build: New("CrewFlow").
				Method("research", CrewAction(&Crew{
					Name: "inline_research", Process: "sequential",
					Agents: []*Agent{{Name: "researcher", Role: "Researcher", Goal: "Research {topic}", Backstory: "Knows.", LLM: Model("openai/gpt-4o")}},
					Tasks: []*Task{
						{Name: "research_task", Description: "Research {topic}", ExpectedOutput: "Findings", Agent: "researcher"},
						{Description: "Summarise", ExpectedOutput: "Summary", Context: []string{"research_task"}},
					},
					Inputs: map[string]any{"audience": "devs"},
				}, map[string]any{"topic": "${state.topic}"})).Start().
				Method("referenced", CrewFrom("crews/research", map[string]any{"topic": "AI"})).ListenTo("research").
				Flow(),
		},
		{
			name: "human feedback, persistence and json schema state",
			yaml: `name: Review
state: {type: json_schema, json_schema: {type: object, properties: {n: {type: integer}}}, default: {n: 1}}
persist: {enabled: true, persistence: {persistence_type: SQLiteFlowPersistence}}
conversational: {system_prompt: Be brief.}
methods:
  draft:
    start: true
    human_feedback: {message: "Review:", emit: [approved, rejected], default_outcome: rejected}
    persist: {enabled: false}
    do: {call: expression, expr: "'draft'"}
  publish: {listen: approved, do: {call: expression, expr: "'ok'"}}
  discard: {listen: rejected, do: {call: expression, expr: "'no'"}}
`,
			build: New("Review").
				JSONSchemaState(map[string]any{"type": "object", "properties": map[string]any{"n": map[string]string{"type": "integer"}}},
					map[string]any{"n": int32(1)}).
				Persist(&Persist{Enabled: true, Backend: map[string]any{"persistence_type": "SQLiteFlowPersistence"}}).
				Conversational(map[string]any{"system_prompt": "Be brief."}).
				Method("draft", Expr("'draft'")).Start().
				HumanFeedback(&HumanFeedback{Message: "Review:", Emit: []string{"approved", "rejected"}, DefaultOutcome: "rejected"}).
				Persist(&Persist{}).
				Method("publish", Expr("'ok'")).ListenTo("approved").
				Method("discard", Expr("'no'")).ListenTo("rejected").
				Flow(),
		},
		{
			name: "config block",
			yaml: `name: Configured
config:
  tracing: false
  memory: {root_scope: /flow/x}
  input_provider: "m:Provider"
  suppress_flow_events: true
  defer_trace_finalization: true
  checkpoint: {location: ./ck}
conversational: {enabled: 0, system_prompt: Hi}
methods:
  a: {start: true, do: {call: expression, expr: "1"}}
`,
			build: New("Configured").
				Config(func(c *Config) {
					c.Tracing = new(false)
					c.Memory = map[string]any{"root_scope": "/flow/x"}
					c.InputProvider = "m:Provider"
					c.SuppressFlowEvents = true
					c.DeferTraceFinalization = true
					c.Checkpoint = &Checkpoint{Location: "./ck"}
				}).
				Conversational(map[string]any{"enabled": 0, "system_prompt": "Hi"}).
				Method("a", Expr("1")).Start().
				Flow(),
		},
		{
			name:  "checkpoint true",
			yaml:  "name: C\nconfig: {checkpoint: true}\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n",
			build: New("C").Config(func(c *Config) { c.Checkpoint = &Checkpoint{} }).Method("a", Expr("1")).Start().Flow(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := Parse([]byte(tt.yaml), "")
			require.NoError(t, err)
			got, err := tt.build.Build()
			require.NoError(t, err)
			assert.Equal(t, bare(want), bare(got))
			assert.ElementsMatch(t, places(want.Warnings), places(got.Warnings))
			assert.Empty(t, got.Source)

			out, err := got.YAML()
			require.NoError(t, err)
			again, err := Parse(out, "")
			require.NoError(t, err)
			assert.Equal(t, bare(got), bare(again), "%s", out)
		})
	}
}

func TestBuildGoFunctionBody(t *testing.T) {
	called := false
	def, err := New("F").
		Method("work", Go(func(context.Context, Input) (any, error) {
			called = true
			return "done", nil
		})).Start().
		Build()
	require.NoError(t, err)
	out, err := def.Methods[0].Do.Func(context.Background(), Input{})
	require.NoError(t, err)
	assert.Equal(t, "done", out)
	assert.True(t, called)

	_, err = def.YAML()
	assert.ErrorIs(t, err, ErrNotSerializable)
	assert.ErrorContains(t, err, "methods.work.do")
}

func TestBuildCopiesInput(t *testing.T) {
	state := map[string]any{"n": 1}
	with := map[string]any{"q": []any{"a"}}
	b := New("F").State(state).Method("a", Code("m:f", with)).Start().Flow()
	def, err := b.Build()
	require.NoError(t, err)

	state["n"] = 2
	with["q"].([]any)[0] = "changed"
	b.Method("b", Expr("1")).ListenTo("a")

	assert.Equal(t, map[string]any{"n": int64(1)}, def.State.Default)
	assert.Equal(t, map[string]any{"q": []any{"a"}}, def.Methods[0].Do.With)
	assert.Len(t, def.Methods, 1)

	again, err := b.Build()
	require.NoError(t, err)
	assert.Len(t, again.Methods, 2)
	assert.Equal(t, map[string]any{"n": int64(2)}, again.State.Default)
}

func TestBuildWarnings(t *testing.T) {
	def, err := New("F").
		Method("a", Expr("1")).Start().
		Method("b", Expr("2")).ListenTo("typo").
		Build()
	require.NoError(t, err)
	require.NotEmpty(t, def.Warnings)
	assert.False(t, def.Warnings.HasErrors())
	codes := make([]string, 0, len(def.Warnings))
	for _, w := range def.Warnings {
		codes = append(codes, w.Code)
	}
	assert.Contains(t, codes, "unknown_event")
}

func TestBuildErrorIsDiagnostics(t *testing.T) {
	_, err := New("F").Method("a", Expr("nope.x")).Start().Build()
	var diags Diagnostics
	require.True(t, errors.As(err, &diags))
	assert.Contains(t, err.Error(), "flow: error: methods.a.do.expr: unknown CEL root")
}

func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, err := New("Bench").
			State(map[string]any{"topic": "AI", "rows": []string{"a", "b"}}).
			Method("begin", Expr(`"about " + state.topic`)).Start().
			Method("decide", Expr(`size(outputs.begin) > 3 ? "long" : "short"`)).ListenTo("begin").Router("long", "short").
			Method("rows", Each("state.rows", NewStep("upper", Code("m:upper", map[string]any{"row": "${item}"})))).ListenTo("long").
			Build()
		if err != nil {
			b.Fatal(err)
		}
	}
}
