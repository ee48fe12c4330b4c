package flow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/durable"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
)

// fixtureDir returns the CrewAI conformance corpus, or skips the test.
func fixtureDir(t testing.TB) string { return conformanceDir(t) }

// testTool is a tool whose body is a Go function over decoded arguments.
type testTool struct {
	spec llm.ToolSpec
	fn   func(args map[string]any) (any, error)
}

func (t testTool) Spec() llm.ToolSpec { return t.spec }

func (t testTool) Call(_ context.Context, raw json.RawMessage) (any, error) {
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	return t.fn(args)
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func intOf(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}

// fixtureEngine registers fakes under the refs the corpus uses, behaving as
// the MANIFEST describes.
func fixtureEngine(opts ...flow.Option) *flow.Engine {
	const m = "test_flow_from_definition:"
	set := func(key string, v any) func(in flow.Input) { return func(in flow.Input) { in.State.Set(key, v) } }
	ret := func(v any, effects ...func(flow.Input)) flow.Handler {
		return func(_ context.Context, in flow.Input) (any, error) {
			for _, f := range effects {
				f(in)
			}
			return v, nil
		}
	}
	incr := func(key string) func(flow.Input) int64 {
		return func(in flow.Input) int64 {
			var n int64
			in.State.Update(func(s map[string]any) {
				n = intOf(s[key]) + 1
				s[key] = n
			})
			return n
		}
	}
	searchTool := testTool{
		spec: llm.ToolSpec{Name: "StaticSearchTool", Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"search_query": map[string]any{"type": "string"},
				"prefix":       map[string]any{"type": "string", "default": "search"},
			},
			"required": []any{"search_query"},
		}},
		fn: func(a map[string]any) (any, error) {
			prefix := "search"
			if p, ok := a["prefix"]; ok {
				prefix = str(p)
			}
			return prefix + ":" + str(a["search_query"]), nil
		},
	}
	typedTool := testTool{
		spec: llm.ToolSpec{Name: "TypedInputsTool", Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"count":           map[string]any{"type": "integer"},
				"include_domains": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			},
			"required": []any{"count", "include_domains"},
		}},
		fn: func(a map[string]any) (any, error) {
			var ds []string
			for _, d := range a["include_domains"].([]any) {
				ds = append(ds, str(d))
			}
			return fmt.Sprintf("%d:%s", intOf(a["count"]), strings.Join(ds, ",")), nil
		},
	}
	asyncTool := testTool{
		spec: llm.ToolSpec{Name: "AsyncResultTool"},
		fn:   func(a map[string]any) (any, error) { return "async:" + str(a["value"]), nil },
	}
	all := []flow.Option{
		flow.WithCode(m+"ChainFlow.begin", ret("hello", set("begin_ran", true))),
		flow.WithCode(m+"ChainFlow.shout", func(_ context.Context, in flow.Input) (any, error) {
			return strings.ToUpper(str(in.Trigger)), nil
		}),
		flow.WithCode(m+"ChainFlow.confirm", ret("confirmed:True", set("confirmed", true))),
		flow.WithCode(m+"MergeFlow.begin", ret("go")),
		flow.WithCode(m+"MergeFlow.left", ret("left")),
		flow.WithCode(m+"MergeFlow.right", ret("right")),
		flow.WithCode(m+"MergeFlow.either", ret("either", set("either_ran", true))),
		flow.WithCode(m+"MergeFlow.join", ret("joined", set("joined", true))),
		flow.WithCode(m+"RouteFlow.begin", ret("go")),
		flow.WithCode(m+"RouteFlow.decide", func(_ context.Context, in flow.Input) (any, error) {
			if in.State.Value("direction") == "left" {
				return "left", nil
			}
			return "right", nil
		}),
		flow.WithCode(m+"RouteFlow.take_left", ret("took-left")),
		flow.WithCode(m+"RouteFlow.take_right", ret("took-right")),
		flow.WithCode(m+"LoopFlow.step", func(_ context.Context, in flow.Input) (any, error) {
			return incr("count")(in), nil
		}),
		flow.WithCode(m+"LoopFlow.decide", func(_ context.Context, in flow.Input) (any, error) {
			if intOf(in.State.Value("count")) < 3 {
				return "retry", nil
			}
			return "done", nil
		}),
		flow.WithCode(m+"LoopFlow.finish", func(_ context.Context, in flow.Input) (any, error) {
			return fmt.Sprintf("finished:%d", intOf(in.State.Value("count"))), nil
		}),
		flow.WithCode(m+"PydanticStateFlow.begin", func(_ context.Context, in flow.Input) (any, error) {
			return incr("count")(in), nil
		}),
		flow.WithCode(m+"PydanticStateFlow.finish", func(_ context.Context, in flow.Input) (any, error) {
			label := fmt.Sprintf("count=%d", intOf(in.State.Value("count")))
			in.State.Set("label", label)
			return label, nil
		}),
		flow.WithCode(m+"ToolInputFlow.build_query", ret(map[string]any{"query": "ai agents", "suffix": " news"}, set("prefix", "found"))),
		flow.WithCode(m+"EachActionFlow.normalize_row", func(_ context.Context, in flow.Input) (any, error) {
			prefix := "normalized"
			if p, ok := in.Args["prefix"]; ok {
				prefix = str(p)
			}
			return prefix + ":" + str(in.Args["row"]), nil
		}),
		flow.WithCode(m+"EachActionFlow.save_row", func(_ context.Context, in flow.Input) (any, error) {
			return map[string]any{"row": in.Args["row"], "normalized": in.Args["normalized"]}, nil
		}),
		flow.WithCode(m+"EachActionFlow.keyword_code", func(_ context.Context, in flow.Input) (any, error) {
			return str(in.Args["name"]) + str(in.Args["punctuation"]), nil
		}),
		flow.WithCode(m+"EachActionFlow.fail_on_bad_row", func(_ context.Context, in flow.Input) (any, error) {
			if in.Args["row"] == "bad" {
				return nil, errors.New("bad row")
			}
			return in.Args["row"], nil
		}),
		flow.WithCode(m+"EachActionFlow.require_threaded_context", func(_ context.Context, in flow.Input) (any, error) {
			return in.Method + ":" + str(in.Args["row"]), nil
		}),
		flow.WithCode(m+"EachActionFlow.after_each", func(_ context.Context, in flow.Input) (any, error) {
			return fmt.Sprintf("after:%d", incr("after_count")(in)), nil
		}),
		flow.WithCode(m+"TemplateInputFlow.capture_inputs", func(_ context.Context, in flow.Input) (any, error) {
			return map[string]any{"prompt": in.Args["prompt"], "domains": in.Args["domains"]}, nil
		}),
		flow.WithCode(m+"CALLABLE_CODE_ACTION", func(_ context.Context, in flow.Input) (any, error) {
			return "callable:" + str(in.Args["value"]), nil
		}),
		flow.WithToolRef(m+"StaticSearchTool", searchTool),
		flow.WithToolRef(m+"TypedInputsTool", typedTool),
		flow.WithToolRef(m+"AsyncResultTool", asyncTool),
		flow.WithStateSchema(m+"CounterState", map[string]any{
			"title": "CounterState", "type": "object",
			"properties": map[string]any{
				"count": map[string]any{"type": "integer", "default": int64(0)},
				"label": map[string]any{"type": "string", "default": "none"},
			},
		}),
	}
	return flow.NewEngine(append(all, opts...)...)
}

var _ action.Tool = testTool{}

// runCase is one runtime expectation of the MANIFEST that needs no model.
type runCase struct {
	file    string
	inputs  map[string]any
	scripts bool
	want    any    // the result, when wantErr is empty
	wantErr string // a substring of the error
	state   map[string]any
	trace   []string // the completion order, when it is deterministic
	check   func(t *testing.T, res *flow.Result)
}

// manifestCases lists the runtime expectations of the MANIFEST.
func manifestCases() []runCase {
	return []runCase{
		{file: "chain_flow.yaml", want: "confirmed:True", trace: []string{"begin", "shout", "confirm"},
			state: map[string]any{"begin_ran": true, "confirmed": true}},
		{file: "merge_and_or.yaml", state: map[string]any{"either_ran": true, "joined": true}},
		{file: "route_labels.yaml", inputs: map[string]any{"direction": "left"}, check: func(t *testing.T, r *flow.Result) {
			assert.Contains(t, r.Trace, "take_left")
			assert.NotContains(t, r.Trace, "take_right")
		}},
		{file: "route_labels.yaml", inputs: map[string]any{"direction": "right"}, check: func(t *testing.T, r *flow.Result) {
			assert.Contains(t, r.Trace, "take_right")
			assert.NotContains(t, r.Trace, "take_left")
		}},
		{file: "loop_conditional_start.yaml", want: "finished:3", state: map[string]any{"count": int64(3)}},
		{file: "config_max_method_calls_loop.yaml", wantErr: "Method 'decide' has been called 2 times in this flow execution, which indicates an infinite loop."},
		{file: "state_pydantic_ref.yaml", want: "count=1", state: map[string]any{"count": int64(1), "label": "count=1"}},
		{file: "state_pydantic_ref_default_overlay.yaml", want: "count=6", state: map[string]any{"count": int64(6)}},
		{file: "state_json_schema.yaml", want: "count=1", state: map[string]any{"count": int64(1), "label": "count=1"}},
		{file: "state_json_schema.yaml", inputs: map[string]any{"count": "not-a-number"}, wantErr: "Invalid inputs"},
		{file: "state_json_schema_required_from_inputs.yaml", inputs: map[string]any{"lead_name": "Ada Lovelace"}, want: "Ada Lovelace",
			state: map[string]any{"lead_name": "Ada Lovelace"}},
		{file: "state_pydantic_ref_fallback_json_schema.yaml", want: "count=1", state: map[string]any{"count": int64(1)}},
		{file: "state_pydantic_unresolvable_dict_fallback.yaml", want: "hello", state: map[string]any{"begin_ran": true}},
		{file: "state_dict_default.yaml", state: map[string]any{"count": int64(5), "begin_ran": true}},
		{file: "state_unknown_type.yaml", want: "hello", state: map[string]any{"begin_ran": true}},
		{file: "config_suppress_flow_events.yaml", want: "confirmed:True"},
		{file: "config_stream.yaml", want: "confirmed:True"},
		{file: "config_defer_trace_finalization.yaml", want: "confirmed:True"},
		{file: "tool_static_inputs.yaml", want: "found:ai agents"},
		{file: "tool_round_trip.json", want: "search:ai agents"},
		{file: "tool_cel_ternary_inputs.yaml", inputs: map[string]any{"topic": "ai"}, want: "found:ai agents"},
		{file: "tool_cel_string_literal_braces.json", want: "p}x:wrapped a}b value"},
		{file: "tool_expr_with_surrounding_text.json", inputs: map[string]any{"topic": "ai"}, want: "p:ai extra"},
		{file: "tool_multiple_expressions_with_literals.json", inputs: map[string]any{"a": "one", "b": "two"}, want: "p:here's one and another two!"},
		{file: "tool_non_string_values_as_json.json", inputs: map[string]any{"n": int64(3), "ok": true, "d": map[string]any{"a": int64(1)}},
			want: `p:n=3; ok=true; d={"a": 1}`},
		{file: "tool_null_as_empty.json", inputs: map[string]any{"note": nil}, want: "p:note:;"},
		{file: "tool_object_literal_field.json", want: "p:result: v end"},
		{file: "tool_plain_dollar_and_escape.json", want: "p:$5 or $more, escaped ${x"},
		{file: "tool_object_literal_keeps_type.json", want: "p}x:ai agents"},
		{file: "tool_latest_output_by_name.yaml", want: "search:hello agents"},
		{file: "tool_state_and_outputs.yaml", want: "found:ai agents news"},
		{file: "tool_whole_expression_keeps_types.yaml", inputs: map[string]any{"limit": int64(2), "domains": []any{"crewai.com", "example.com"}},
			want: "2:crewai.com,example.com"},
		{file: "tool_list_item_interpolation.yaml", inputs: map[string]any{"limit": int64(2), "primary_domain": "crewai.com", "domain_suffix": "example.com"},
			want: "2:crewai.com,docs.example.com"},
		{file: "tool_ticket_template.yaml", inputs: map[string]any{"ticket": map[string]any{"id": int64(123), "subject": nil},
			"messages": []any{map[string]any{"body": "Initial report"}}, "prefix": "ticket"},
			want: "ticket:Ticket ID: 123; Subject: ; Message: Initial report"},
		{file: "code_keyword_inputs.yaml", inputs: map[string]any{"name": "hello"}, want: "hello!"},
		{file: "code_strings_and_lists.yaml", inputs: map[string]any{"ticket": map[string]any{"id": int64(123), "subject": "Login issue"},
			"primary_domain": "crewai.com", "domain_suffix": "example.com"},
			want: map[string]any{"prompt": "Ticket 123: Login issue", "domains": []any{"crewai.com", "docs.example.com"}}},
		{file: "code_callable_instance.yaml", inputs: map[string]any{"value": "ok"}, want: "callable:ok"},
		{file: "each_single_code_step.yaml", inputs: map[string]any{"rows": []any{"a", "b"}}, want: []any{"normalized:a", "normalized:b"}},
		{file: "each_item_fields.yaml", inputs: map[string]any{"prefix": "normalized", "rows": []any{
			map[string]any{"id": int64(1), "value": "alpha"}, map[string]any{"id": int64(2), "value": "beta"}}},
			want: []any{"normalized:Row 1: alpha", "normalized:Row 2: beta"}},
		{file: "each_sync_step_off_loop.yaml", inputs: map[string]any{"rows": []any{"a"}}, want: []any{"process_rows:a"}},
		{file: "each_async_tool_result.yaml", inputs: map[string]any{"rows": []any{"a", "b"}}, want: []any{"async:a", "async:b"}},
		{file: "each_step_outputs_chain.yaml", inputs: map[string]any{"rows": []any{"a", "b"}}, want: []any{
			map[string]any{"row": "a", "normalized": "saved:a"}, map[string]any{"row": "b", "normalized": "saved:b"}}},
		{file: "each_outputs_reset_per_item.yaml", inputs: map[string]any{"rows": []any{"a", "b"}}, want: []any{"a", "b"},
			trace: []string{"process_rows"}},
		{file: "each_step_shadows_method_output.yaml", inputs: map[string]any{"rows": []any{"a", "b"}}, want: []any{"local:a", "local:b"},
			trace: []string{"seed", "process_rows"}, check: func(t *testing.T, r *flow.Result) {
				assert.Equal(t, "global", r.Outputs["seed"])
			}},
		{file: "each_if_clauses.yaml", inputs: map[string]any{"rows": []any{
			map[string]any{"kind": "keep", "value": "a"}, map[string]any{"kind": "drop", "value": "b"}}},
			want: []any{"kept:a", "skipped:b"}},
		{file: "each_expression_markers.yaml", inputs: map[string]any{"rows": []any{map[string]any{"kind": "keep", "value": "a"}}}, want: []any{"a"}},
		{file: "each_skipped_if_keeps_previous.yaml", inputs: map[string]any{"rows": []any{
			map[string]any{"include": true, "value": "a"}, map[string]any{"include": false, "value": "b"}}},
			want: []any{"included:a", "b"}},
		{file: "each_if_non_boolean.yaml", inputs: map[string]any{"rows": []any{map[string]any{"value": "truthy"}}},
			wantErr: "if expression must evaluate to a boolean"},
		{file: "each_empty_list_then_listener.yaml", inputs: map[string]any{"rows": []any{}}, want: "after:1",
			trace: []string{"process_rows", "after_each"}, state: map[string]any{"after_count": int64(1)},
			check: func(t *testing.T, r *flow.Result) { assert.Equal(t, []any{}, r.Outputs["process_rows"]) }},
		{file: "each_in_not_list_int.json", inputs: map[string]any{}, wantErr: "each.in must evaluate to an array"},
		{file: "each_in_not_list_string.json", inputs: map[string]any{}, wantErr: "each.in must evaluate to an array"},
		{file: "each_in_not_list_map.json", inputs: map[string]any{"rows": map[string]any{"a": int64(1)}}, wantErr: "each.in must evaluate to an array"},
		{file: "each_step_failure.yaml", inputs: map[string]any{"rows": []any{"ok", "bad"}}, wantErr: "bad row"},
		{file: "expression_ternary.json", inputs: map[string]any{"score": int64(90)}, want: "qualified"},
		{file: "expression_with_marker.json", inputs: map[string]any{"score": int64(90)}, want: "qualified"},
		{file: "expression_router.yaml", inputs: map[string]any{"direction": "left"}, want: "took-left"},
		{file: "expression_router.yaml", inputs: map[string]any{"direction": "right"}, want: "took-right"},
		{file: "declaration_contents.json", want: "started"},
		{file: "script_mutates_state.yaml", scripts: true, inputs: map[string]any{"raw_score": 3.2}, want: "rounded:4",
			state: map[string]any{"rounded": int64(4)}},
		{file: "script_listener_input_and_outputs.yaml", scripts: true, want: "alpha:alpha",
			state: map[string]any{"input_matches_output": true}},
		{file: "script_each_item_and_step_outputs.yaml", scripts: true, inputs: map[string]any{"rows": []any{" a ", " b "}},
			want: []any{"global:a", "global:b"}},
		{file: "template_scaffold_flow.yaml", want: "AI agents"},
		{file: "plain_dict_state_topic.json", check: func(t *testing.T, r *flow.Result) { assert.Equal(t, "ai", r.State["topic"]) }},
	}
}

func TestManifestRuntime(t *testing.T) {
	dir := filepath.Join(fixtureDir(t), "valid")
	for _, c := range manifestCases() {
		t.Run(strings.TrimSuffix(c.file, filepath.Ext(c.file)), func(t *testing.T) {
			if c.scripts && !hasPython() {
				t.Skip("python3 is not installed; script actions cannot run")
			}
			def, err := flow.Load(filepath.Join(dir, c.file))
			require.NoError(t, err)
			// Every case also runs with each result passed through the
			// durable codec, as a durable run sees it: it must not change.
			for _, codec := range []bool{false, true} {
				opts := []flow.Option{flow.WithScripts(c.scripts)}
				if codec {
					opts = append(opts, flow.WithInterceptor((&durable.Codec{}).Interceptor(nil)))
				}
				t.Run(fmt.Sprintf("codec=%v", codec), func(t *testing.T) { c.run(t, fixtureEngine(opts...), def) })
			}
		})
	}
}

// run runs the case's definition on eng and checks what it expects.
func (c runCase) run(t *testing.T, eng *flow.Engine, def *flow.Definition) {
	res, err := eng.Run(context.Background(), def, c.inputs)
	if !c.verify(t, res, err) {
		return
	}
	assert.NotEmpty(t, res.State["id"])
	if c.check != nil {
		c.check(t, res)
	}
}

// verify checks a run's result and error against the case's error,
// output, trace and state. It reports whether the run succeeded, so the
// caller can check more.
func (c runCase) verify(t *testing.T, res *flow.Result, err error) bool {
	t.Helper()
	if c.wantErr != "" {
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.wantErr)
		return false
	}
	require.NoError(t, err)
	if c.want != nil {
		assert.Equal(t, c.want, res.Output)
	}
	if c.trace != nil {
		assert.Equal(t, c.trace, res.Trace)
	}
	for k, v := range c.state {
		assert.Equal(t, v, res.State[k], "state.%s", k)
	}
	return true
}

func hasPython() bool {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "python3")); err == nil {
			return true
		}
	}
	return false
}
