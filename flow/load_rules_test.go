package flow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

func TestSelfListenMessages(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{
			"string",
			"name: F\nmethods:\n  begin: {start: true, do: {call: expression, expr: '1'}}\n  publish: {listen: publish, do: {call: expression, expr: '1'}}\n",
			"listen condition 'publish' references the handler name 'publish'. A listener triggered by its own completion creates an infinite loop. Listen to a different method or event, or rename the handler.",
		},
		{
			"nested condition",
			"name: F\nmethods:\n  begin: {start: true, do: {call: expression, expr: '1'}}\n  publish: {listen: {or: [begin, {and: [x, publish]}]}, do: {call: expression, expr: '1'}}\n",
			"listen condition {'or': ['begin', {'and': ['x', 'publish']}]} references the handler name 'publish'.",
		},
		{
			"conversational",
			"name: F\nconversational: {}\nmethods:\n  order: {listen: order, do: {call: expression, expr: '1'}}\n",
			"listen condition 'order' matches the handler name 'order'. In conversational flows, @listen labels are router route names — they share the same trigger namespace as method completion events, so this handler would re-run in a loop. Rename the handler (for example, handle_order) or use a different route label.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := check(t, tt.src)
			require.True(t, ds.HasErrors())
			assert.Contains(t, ds.Error(), tt.want)
		})
	}
	t.Run("start conditions are not checked", func(t *testing.T) {
		_, ds := check(t, "name: F\nmethods:\n  again: {start: again, do: {call: expression, expr: '1'}}\n")
		assert.False(t, ds.HasErrors(), "%v", ds)
	})
}

func TestSpecMessagesAppear(t *testing.T) {
	method := func(do string) string {
		return "name: F\nmethods:\n  m:\n    start: true\n    do: " + do + "\n"
	}
	tests := []struct{ name, src, want string }{
		{"field required", "methods: {}\n", "Field required"},
		{"literal", "name: F\nschema: v2\n", "Input should be 'crewai.flow/v1'"},
		{"extra forbidden", "name: F\nstate: {type: dict, ref: x}\n", "Extra inputs are not permitted"},
		{"state without type", "name: F\nstate: {default: {}}\n", "union_tag_not_found"},
		{"state unknown type", "name: F\nstate: {type: model}\n", "union_tag_invalid"},
		{"step without call", method("{call: each, in: state.l, do: [{name: s, action: {ref: 'a:b'}}]}"), "union_tag_not_found"},
		{"nested each", method("{call: each, in: state.l, do: [{name: s, action: {call: each, in: state.l, do: []}}]}"), "union_tag_invalid"},
		{"default not a dict", "name: F\nstate: {type: dict, default: [1]}\n", "Input should be a valid dictionary"},
		{"step name", method("{call: each, in: state.l, do: [{name: 'a b', action: {call: expression, expr: item}}]}"), "each.do step names must match ^[A-Za-z_][A-Za-z0-9_]*$"},
		{"each empty", method("{call: each, in: state.l, do: []}"), "each.do must contain at least one step"},
		{"step unique", method("{call: each, in: state.l, do: [{name: s, action: {call: expression, expr: item}}, {name: s, action: {call: expression, expr: item}}]}"), "each.do step names must be unique: 's'"},
		{"crew exactly one", method("{call: crew, from_declaration: crews/x, with: {agents: {a: {}}, tasks: [{description: d, expected_output: o}]}}"), "crew action requires exactly one of from_declaration or with"},
		{"crew neither", method("{call: crew, from_declaration: ''}"), "crew action requires exactly one of from_declaration or with"},
		{"method names", "name: F\nmethods:\n  1st: {start: true, do: {call: expression, expr: '1'}}\n", "Flow method names must match ^[A-Za-z_][A-Za-z0-9_]*$"},
		{"empty cel", method("{call: expression, expr: '${ }'}"), "empty CEL expression at methods.m.do.expr. Provide a CEL expression such as state.topic or outputs.step_name."},
		{"invalid cel", method("{call: expression, expr: 'state.'}"), "invalid CEL expression at methods.m.do.expr: 'state.'. Check the CEL syntax. Parser details: "},
		{"unknown root", method("{call: expression, expr: 'b.x + a'}"), "unknown CEL root at methods.m.do.expr: 'a', 'b'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name."},
		{"step roots", method("{call: each, in: state.l, do: [{name: s, if: 'x', action: {call: expression, expr: item}}]}"), "allowed roots: item, outputs, state."},
		{"unterminated", method("{ref: 'a:b', with: {q: 'cost ${state.a'}}"), "unterminated ${...} expression in 'cost ${state.a' at methods.m.do.with.q"},
		{"empty template", method("{ref: 'a:b', with: {q: 'x ${} y'}}"), "empty CEL expression in 'x ${} y' at methods.m.do.with.q"},
		{"expression N", method("{ref: 'a:b', with: {q: '${state.a} ${bad}'}}"), "unknown CEL root at methods.m.do.with.q (expression 2): 'bad'"},
		{"agent settings", method("{call: agent, with: {input: x, settings: 5}}"), "agent.settings must be a mapping"},
		{"agent input", method("{call: agent, with: {input: 5}}"), "agent.input must be a string"},
		{"python ref empty", method("{call: agent, with: {input: x, response_format: {python: ' '}}}"), "Python reference 'python' must be a string"},
		{"python ref dotted", method("{call: agent, with: {input: x, response_format: {python: Model}}}"), "Python reference 'Model' must be a dotted import path like 'module.attribute'"},
		{"agents name", method("{call: crew, with: {agents: [{name: ''}], tasks: [{description: d, expected_output: o}]}}"), "agents[0].name must be a non-empty string"},
		{"agents one key", method("{call: crew, with: {agents: [{a: {}, b: {}}], tasks: [{description: d, expected_output: o}]}}"), "agents[0] must include a name field or be a one-key mapping"},
		{"agents mapping", method("{call: crew, with: {agents: [x], tasks: [{description: d, expected_output: o}]}}"), "agents[0] must be an inline agent mapping"},
		{"agents empty", method("{call: crew, with: {agents: {}, tasks: [{description: d, expected_output: o}]}}"), "crew action requires inline agent definitions"},
		{"tasks empty", method("{call: crew, with: {agents: {a: {}}, tasks: []}}"), "crew action requires a non-empty tasks list"},
		{"crew inputs", method("{call: crew, with: {agents: {a: {}}, tasks: [{description: d, expected_output: o}], inputs: [1]}}"), "crew.inputs must be a mapping"},
		{"task fields", method("{call: crew, with: {agents: {a: {}}, tasks: [{description: d}]}}"), "Field required"},
		{"llm model", method("{call: agent, with: {input: x, llm: {max_tokens: 5}}}"), "Field required"},
		{"script language", method("{call: script, code: 'x', language: ruby}"), "Input should be 'python'"},
		{"date data", method("{ref: 'a:b', with: {d: 2024-01-01 10:00:00}}"), "not valid expression data"},
		{"condition shape", "name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n  b: {listen: {or: a}, do: {call: expression, expr: '1'}}\n", "or takes a list of conditions"},
		{"condition list", "name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n  b: {listen: [a], do: {call: expression, expr: '1'}}\n", "a condition cannot be a list"},
		{"condition keys", "name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n  b: {listen: {any: [a]}, do: {call: expression, expr: '1'}}\n", "a condition mapping must have exactly one key"},
		{"unknown call", method("{call: python, code: x}"), "call must be one of code, tool, crew, agent, expression, script, each"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := flow.Parse([]byte(tt.src), "f.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestWarnings(t *testing.T) {
	expr := "do: {call: expression, expr: '1'}"
	tests := []struct{ name, src, path, code, want string }{
		{"emit without router", "name: F\nmethods:\n  a: {start: true, emit: [x], " + expr + "}\n",
			"methods.a.emit", "emit_without_router", "emit is only used by routers to declare downstream events"},
		{"router without trigger", "name: F\nmethods:\n  a: {start: true, " + expr + "}\n  r: {router: true, " + expr + "}\n",
			"methods.r", "router_without_trigger", "neither start nor listen"},
		{"unknown event", "name: F\nmethods:\n  begin: {start: true, " + expr + "}\n  h: {listen: begni, " + expr + "}\n",
			"methods.h.listen", "unknown_event", `did you mean "begin"?`},
		{"unreachable", "name: F\nmethods:\n  a: {start: true, " + expr + "}\n  r: {start: false, router: true, emit: [x], listen: a, " + expr + "}\n  b: {listen: {and: [a, c]}, " + expr + "}\n  c: {listen: b, " + expr + "}\n",
			"methods.b", "unreachable", "can never run"},
		{"no trigger", "name: F\nmethods:\n  a: {start: true, " + expr + "}\n  b: {" + expr + "}\n",
			"methods.b", "unreachable", "neither start nor listen"},
		{"llm required", "name: F\nmethods:\n  a: {start: true, human_feedback: {message: ok, emit: [y, n], llm: null}, " + expr + "}\n",
			"methods.a.human_feedback.llm", "human_feedback_llm_required", "llm is required when human_feedback.emit is set"},
		{"default requires emit", "name: F\nmethods:\n  a: {start: true, human_feedback: {message: ok, default_outcome: y}, " + expr + "}\n",
			"methods.a.human_feedback.default_outcome", "human_feedback_default_requires_emit", "default_outcome requires human_feedback.emit"},
		{"default not in emit", "name: F\nmethods:\n  a: {start: true, human_feedback: {message: ok, emit: [y], default_outcome: n}, " + expr + "}\n",
			"methods.a.human_feedback.default_outcome", "human_feedback_default_not_in_emit", "default_outcome must be one of human_feedback.emit"},
		{"output read before it can exist", "name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: outputs.b}}\n  b: {listen: a, " + expr + "}\n",
			"methods.a.do.expr", "output_not_ready", `"b" cannot have run before it`},
		{"output of no method", "name: F\nmethods:\n  a: {start: true, " + expr + "}\n  b: {listen: a, do: {ref: 'm:f', with: {x: '${outputs.aa}'}}}\n",
			"methods.b.do.with.x", "unknown_output", "did you mean outputs.a?"},
		{"output in an each step", "name: F\nmethods:\n  a: {start: true, " + expr + "}\n  b: {listen: a, do: {call: each, in: state.l, do: [{name: s, if: \"outputs.c > 1\", action: {call: expression, expr: item}}]}}\n  c: {listen: b, " + expr + "}\n",
			"methods.b.do.do[0].if", "output_not_ready", `"c" cannot have run before it`},
		{"unknown key", "name: F\ndescripton: x\n",
			"descripton", "unknown_key", `Did you mean "description"?`},
		{"duplicate key", "name: F\nname: G\n",
			"name", "duplicate_key", "the last value wins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := flow.Parse([]byte(tt.src), "f.yaml")
			require.NoError(t, err)
			d, ok := find(def.Warnings, tt.path, tt.code)
			require.True(t, ok, "no %s at %s in %v", tt.code, tt.path, def.Warnings)
			assert.Equal(t, flow.SeverityWarning, d.Severity)
			assert.Contains(t, d.Message, tt.want)
			assert.Positive(t, d.Line)
		})
	}
}

func TestOutputsThatCanExistAreQuiet(t *testing.T) {
	src := `
name: Quiet
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  mid: {listen: begin, do: {call: expression, expr: "outputs.begin + 1"}}
  loop:
    listen: {or: [mid, again]}
    router: true
    emit: [again, done]
    do: {call: expression, expr: "has(outputs.loop) ? 'done' : 'again'"}
  steps:
    listen: done
    do:
      call: each
      in: "[outputs.mid]"
      do:
        - {name: first, action: {call: expression, expr: "item + outputs.begin"}}
        - {name: second, action: {call: code, ref: "m:f", with: {v: "${outputs.first}"}}}
  free:
    listen: decide
    do: {call: expression, expr: outputs.begin}
  decide: {listen: steps, router: true, do: {call: expression, expr: "'free'"}}
`
	def, err := flow.Parse([]byte(src), "quiet.yaml")
	require.NoError(t, err)
	for _, w := range def.Warnings {
		assert.NotContains(t, []string{"unknown_output", "output_not_ready"}, w.Code, w.String())
	}
}

func TestConversationalLabelsAreEvents(t *testing.T) {
	src := "name: Chat\nconversational: {llm: gpt-4o-mini}\nmethods:\n  handle_order: {listen: order, do: {call: expression, expr: \"'shipped'\"}}\n"
	def, err := flow.Parse([]byte(src), "")
	require.NoError(t, err)
	assert.Empty(t, def.Warnings)
}

func TestValidateBuiltDefinition(t *testing.T) {
	def := &flow.Definition{Name: "Built", Methods: []*flow.Method{
		{Name: "a", Start: flow.Start{Always: true}},
		{Name: "b", Listen: flow.On("a"), Do: &flow.Action{Call: flow.CallTool}},
		{Name: "c", Listen: flow.On("b"), Do: &flow.Action{Call: flow.CallExpression, Expr: "nope"}},
	}}
	ds := flow.Validate(def)
	var paths []string
	for _, d := range ds.Errors() {
		paths = append(paths, d.Path+" "+d.Code)
		assert.Zero(t, d.Line)
	}
	assert.Equal(t, []string{"methods.a.do missing", "methods.b.do.ref missing", "methods.c.do.expr cel_unknown_root"}, paths)
}

func TestMaxMethodCallsMustBePositive(t *testing.T) {
	tests := []struct {
		value string
		ok    bool
	}{
		{"-1", false},
		{"0", false},
		{"'-5'", false},
		{"1", true},
		{"100", true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			src := "name: F\nconfig:\n  max_method_calls: " + tt.value + "\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n"
			_, ds := flow.Check([]byte(src), "f.yaml")
			if tt.ok {
				assert.False(t, ds.HasErrors(), "%v", ds)
				return
			}
			d, ok := find(ds, "config.max_method_calls", "greater_than_equal")
			require.True(t, ok, "%v", ds)
			assert.Equal(t, flow.SeverityError, d.Severity)
			assert.Equal(t, 3, d.Line)
			assert.Contains(t, d.Message, "greater than or equal to 1")
		})
	}
	_, err := flow.New("F").MaxMethodCalls(-1).Method("a", flow.Expr("1")).Start().Flow().Build()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "config.max_method_calls")
}
