package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
)

func echoTool(name string) action.Tool {
	return action.MustNewTool(name, "looks things up", func(_ context.Context, in struct {
		OrderID string `json:"order_id"`
	}) (map[string]any, error) {
		return map[string]any{"order_id": in.OrderID}, nil
	})
}

func testRegistry(t *testing.T) *action.Tools {
	t.Helper()
	r, err := action.NewTools(echoTool("query_order"), echoTool("query_logistics"), echoTool("create_refund_ticket"))
	require.NoError(t, err)
	return r
}

// render shows a diagnostic as base-file:line:col code path: message.
func render(d Diagnostic) string {
	return fmt.Sprintf("%s:%d:%d %s %s %s: %s", filepath.Base(d.File), d.Line, d.Column, d.Severity, d.Code, d.Path, d.Message)
}

func TestCheckReportsEveryProblem(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"valid.yaml", nil},
		{"valid.json", nil},
		{"derived.yaml", nil},
		{"errors.yaml", []string{
			`errors.yaml:2:3 error missing agent: missing required key "system_prompt"`,
			`errors.yaml:2:9 error name_pattern agent.name: "After-Sales" is not a valid agent name: use lower-case letters, digits and _, starting with a letter`,
			`errors.yaml:3:3 error unknown_key agent.sytem_prompt: unknown key "sytem_prompt" (did you mean "system_prompt"?)`,
			`errors.yaml:5:5 error missing agent.model: missing required key "model_name"`,
			`errors.yaml:5:15 error literal_error agent.model.api_type: "chat" is not one of chat_completions, responses, messages`,
			`errors.yaml:6:18 error range agent.model.temperature: temperature must be between 0 and 2, got 3`,
			`errors.yaml:8:7 error unknown_tool agent.tools[0]: unknown tool "query_ordr" (did you mean "query_order"?)`,
			`errors.yaml:10:7 error duplicate_tool agent.tools[2]: tool "query_order" is listed twice`,
			`errors.yaml:11:46 error literal_error agent.tools[3].approval: "maybe" is not one of required, none`,
			`errors.yaml:11:62 error duration agent.tools[3].timeout: "soon" is not a positive duration (write it like 10s, 2m or 1m30s)`,
			`errors.yaml:12:14 error greater_than_equal agent.max_steps: max_steps must be at least 1, got 0`,
			`errors.yaml:14:5 error missing agent.error_policy.on_error: on_error: fallback needs a fallback_message`,
		}},
		{"state_errors.yaml", []string{
			`state_errors.yaml:3:3 error template-unterminated agent.system_prompt: unterminated ${...} expression`,
			`state_errors.yaml:8:5 error unknown_state agent.state_machine.initial: unknown state "strat" (did you mean "start"?)`,
			`state_errors.yaml:11:30 error state_tool agent.state_machine.states.start.tools[1]: tool "create_refund_ticket" is not among the agent's tools`,
			`state_errors.yaml:12:23 error unknown_event agent.state_machine.states.start.on.verifed: unknown event "verifed" (did you mean "verified"?)`,
			`state_errors.yaml:12:39 error unknown_event agent.state_machine.states.start.on.gone: unknown event "gone"`,
			`state_errors.yaml:12:39 error unknown_state agent.state_machine.states.start.on.gone: unknown state "nowhere"`,
			`state_errors.yaml:18:17 error cel-invalid agent.state_machine.events.verified: invalid CEL expression`,
			`state_errors.yaml:19:14 warning unused_event agent.state_machine.events.spare: event "spare" is not used by any state's on:`,
		}},
		{"state_unreachable.yaml", []string{
			`state_unreachable.yaml:8:5 error no_final_state agent.state_machine: no final state can be reached from the initial state "start" (mark one with final: true)`,
			`state_unreachable.yaml:14:7 error unreachable agent.state_machine.states.island: state "island" cannot be reached from the initial state "start"`,
		}},
		{"derived_bad.yaml", []string{
			`derived_bad.yaml:4:18 error range agent.model.temperature: temperature must be between 0 and 2, got 9`,
			`derived_bad.yaml:5:14 error greater_than_equal agent.max_steps: max_steps must be at least 1, got -1`,
		}},
		// Provenance: the bad temperature is reported in the base file, the
		// bad tool in the derived one.
		{"derived_of_bad.yaml", []string{
			`base_bad.yaml:6:18 error range agent.model.temperature: temperature must be between 0 and 2, got 7`,
			`derived_of_bad.yaml:4:11 error unknown_tool agent.tools[0]: unknown tool "query_ordr" (did you mean "query_order"?)`,
		}},
		{"cycle_a.yaml", []string{
			`cycle_b.yaml:1:10 error extends_cycle extends: extends cycle: testdata/cycle_a.yaml -> testdata/cycle_b.yaml -> testdata/cycle_a.yaml`,
		}},
		{"level2.yaml", []string{
			`derived.yaml:1:10 warning extends_depth extends: more than 2 levels of extends (testdata/level2.yaml -> testdata/level1.yaml -> testdata/derived.yaml -> testdata/base.yaml)`,
		}},
		{"missing_base.yaml", []string{
			`missing_base.yaml:1:10 error extends extends: base agent "nowhere.yaml" not found (looked for testdata/nowhere.yaml`,
		}},
		{"syntax.yaml", []string{
			`syntax.yaml:3:1 error syntax : line 3: mapping values are not allowed in this context`,
		}},
		{"parameters.yaml", []string{
			`parameters.yaml:7:7 error tool_parameters agent.tools[1].parameters: tool "query_logistics" takes no parameter "orderid" (it takes: order_id) (did you mean "order_id"?)`,
			`parameters.yaml:7:7 error tool_parameters agent.tools[1].parameters: tool "query_logistics" requires parameter "order_id", which the file does not declare`,
		}},
		{"ranges.yaml", []string{
			`ranges.yaml:4:38 error greater_than_equal agent.model.max_tokens: max_tokens must be at least 1, got 0`,
			`ranges.yaml:6:38 error greater_than_equal agent.tools[0].max_calls: max_calls must be at least 1, got 0`,
			`ranges.yaml:7:7 error missing agent.tools[1]: missing required key "name"`,
			`ranges.yaml:9:12 error duration agent.timeout: "0s" is not a positive duration (write it like 10s, 2m or 1m30s)`,
			`ranges.yaml:10:17 error duration agent.tool_timeout: "-1s" is not a positive duration`,
			`ranges.yaml:11:21 error greater_than_equal agent.max_result_chars: max_result_chars must be at least 100, got 50`,
			`ranges.yaml:12:31 error greater_than_equal agent.error_policy.max_retries: max_retries must be at least 0, got -1`,
			`ranges.yaml:12:45 error literal_error agent.error_policy.on_error: "notify_humans" is not one of fail, fallback, notify_human (did you mean "notify_human"?)`,
			`ranges.yaml:13:13 error list_type agent.handoffs: want a list, got a string`,
			`ranges.yaml:15:5 error missing agent.state_machine: missing required key "initial"`,
			`ranges.yaml:15:13 error not_mapping agent.state_machine.states: want a mapping of state names to states, got a list`,
			`ranges.yaml:16:13 error not_mapping agent.state_machine.events: want a mapping of event names to CEL conditions, got a list`,
		}},
		{"states.yaml", []string{
			`states.yaml:7:5 error no_final_state agent.state_machine: no final state can be reached from the initial state "a"`,
			`states.yaml:10:13 error not_mapping agent.state_machine.states.a.on: want a mapping of events to target states, got a list`,
			`states.yaml:11:16 error bool_type agent.state_machine.states.a.final: want true or false, got a string`,
			`states.yaml:12:9 error unknown_key agent.state_machine.states.a.tool: unknown key "tool" (did you mean "tools"?)`,
			`states.yaml:13:17 error string_type agent.state_machine.events.e: want a string, got an integer`,
			`states.yaml:13:17 warning unused_event agent.state_machine.events.e: event "e" is not used by any state's on:`,
		}},
		{"nope.yaml", []string{
			`nope.yaml:0:0 error read : open testdata/nope.yaml: no such file or directory`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, ds := CheckFile(filepath.Join("testdata", tt.file), WithTools(testRegistry(t)))
			got := make([]string, len(ds))
			for i, d := range ds {
				got[i] = render(d)
			}
			require.Len(t, got, len(tt.want), strings.Join(got, "\n"))
			for i := range tt.want {
				assert.True(t, strings.HasPrefix(got[i], tt.want[i]), "diagnostic %d:\n got %s\nwant %s", i, got[i], tt.want[i])
			}
		})
	}
}

func TestCheckDocuments(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"not a mapping", "- a\n- b\n", []string{`src.yaml:1:1 error not_mapping : an agent file is a mapping with an agent: key, got a list`}},
		{"no agent", "schema: troupe.agent/v1\n", []string{`src.yaml:1:1 error missing : missing required key "agent"`}},
		{"bad schema", "schema: troupe.agent/v2\nagent: {name: a, system_prompt: p, model: {model_name: m}, max_steps: 1}\n", []string{`src.yaml:1:9 error literal_error schema: schema must be "troupe.agent/v1"`}},
		{"unknown top key", "agnet: {}\n", []string{
			`src.yaml:1:1 error unknown_key agnet: unknown key "agnet" (did you mean "agent"?)`,
			`src.yaml:1:1 error missing : missing required key "agent"`}},
		{"overrides without extends", "agent: {name: a, system_prompt: p, model: {model_name: m}, max_steps: 1}\noverrides: {name: b}\n", []string{`src.yaml:2:12 error overrides_without_extends overrides: overrides: needs extends:`}},
		{"duplicate key", "agent: {name: a, name: b, system_prompt: p, model: {model_name: m}, max_steps: 1}\n", []string{`src.yaml:1:18 error duplicate_key name: key "name" is written twice`}},
		{"wrong types", "agent: {name: 1, system_prompt: [p], model: m, max_steps: x, repeat_detection: maybe, tools: {}}\n", []string{
			`src.yaml:1:15 error string_type agent.name: want a string, got an integer`,
			`src.yaml:1:33 error string_type agent.system_prompt: want a string, got a list`,
			`src.yaml:1:45 error not_mapping agent.model: want a mapping, got a string`,
			`src.yaml:1:59 error int_type agent.max_steps: want an integer, got a string`,
			`src.yaml:1:80 error bool_type agent.repeat_detection: want true or false, got a string`,
			`src.yaml:1:94 error list_type agent.tools: want a list of tool names, got a mapping`}},
		{"registered base", "extends: company_base\noverrides: {name: derived}\n", nil},
	}
	base := WithBase("company_base", []byte("agent: {name: base, system_prompt: p, model: {model_name: m}, max_steps: 1}\n"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := Check([]byte(tt.doc), "src.yaml", base)
			got := make([]string, len(ds))
			for i, d := range ds {
				got[i] = render(d)
			}
			require.Len(t, got, len(tt.want), strings.Join(got, "\n"))
			for i := range tt.want {
				assert.True(t, strings.HasPrefix(got[i], tt.want[i]), "diagnostic %d:\n got %s\nwant %s", i, got[i], tt.want[i])
			}
		})
	}
}

func TestExtendsMergesMapsAndReplacesLists(t *testing.T) {
	def, err := Load(filepath.Join("testdata", "derived.yaml"), WithTools(testRegistry(t)))
	require.NoError(t, err)
	assert.Equal(t, "derived_agent", def.Name)
	assert.Equal(t, "You help customers.", def.SystemPrompt, "kept from the base")
	assert.Equal(t, "openai/gpt-4o-mini", def.Model.ModelName, "maps merge key by key")
	require.NotNil(t, def.Model.Temperature)
	assert.InDelta(t, 0.2, *def.Model.Temperature, 1e-9)
	assert.Equal(t, 500, def.Model.MaxTokens)
	assert.Equal(t, []ToolRef{{Name: "query_order"}}, def.Tools, "lists replace")
	assert.Equal(t, ErrorPolicy{MaxRetries: 3, OnError: OnErrorFallback, FallbackMessage: "Sorry."}, def.ErrorPolicy)
	assert.Equal(t, 4, def.MaxSteps)
	assert.True(t, def.RepeatDetection)
}

func TestLoadValid(t *testing.T) {
	def, err := Load(filepath.Join("testdata", "valid.yaml"), WithTools(testRegistry(t)))
	require.NoError(t, err)
	assert.Equal(t, []ToolRef{{Name: "query_order"}, {Name: "create_refund_ticket", Approval: ApprovalRequired, Timeout: 5 * time.Second, MaxCalls: 1}}, def.Tools)
	assert.Equal(t, 60*time.Second, def.Timeout)
	assert.Equal(t, 10*time.Second, def.ToolTimeout)
	assert.Equal(t, OnErrorNotifyHuman, def.ErrorPolicy.OnError)
	require.NotNil(t, def.StateMachine)
	assert.Equal(t, "start", def.StateMachine.Initial)
	assert.Equal(t, []State{
		{Name: "start", Tools: []string{"query_order"}, On: []Transition{{"verified", "verified"}}},
		{Name: "verified", On: []Transition{{"refunded", "done"}}},
		{Name: "done", Final: true},
	}, def.StateMachine.States)
	_, err = Parse([]byte("agent: {}"), "x.yaml")
	var ds Diagnostics
	require.ErrorAs(t, err, &ds)
	assert.Contains(t, err.Error(), "agent: 4 problems:")
}

func FuzzCheck(f *testing.F) {
	for _, name := range []string{"valid.yaml", "errors.yaml", "state_errors.yaml", "valid.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("a: &a [*a]"))
	f.Add([]byte("agent: {state_machine: {initial: a, states: {a: {on: {e: a}}}, events: {e: 'tool =='}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		def, ds := Check(data, "fuzz.yaml")
		require.NotNil(t, def)
		for _, d := range ds {
			require.NotEmpty(t, d.Message)
		}
	})
}

func TestEmptyStates(t *testing.T) {
	_, ds := Check([]byte("agent: {name: a, system_prompt: p, model: {model_name: m}, max_steps: 1, state_machine: {initial: a, states: {}}}"), "s.yaml")
	require.Len(t, ds, 1)
	assert.Equal(t, "s.yaml:1:110 error missing agent.state_machine.states: a state machine needs at least one state", render(ds[0]))
}

func TestIsDocument(t *testing.T) {
	tests := []struct {
		doc  string
		want bool
	}{
		{"agent: {name: a}", true},
		{"extends: base.yaml\noverrides: {name: b}", true},
		{"schema: troupe.agent/v1", true},
		{"schema: crewai.flow/v1\nname: f\nmethods: {}", false},
		{"- a list", false},
		{"not: [valid", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, IsDocument([]byte(tt.doc)), tt.doc)
	}
}
