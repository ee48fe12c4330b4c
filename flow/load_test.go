package flow_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// check parses src and returns its diagnostics; it fails the test when the
// loader returns an error that is not a Diagnostics.
func check(t *testing.T, src string) (*flow.Definition, flow.Diagnostics) {
	t.Helper()
	return flow.Check([]byte(src), "flow.yaml")
}

// find returns the first diagnostic with the given path and code.
func find(ds flow.Diagnostics, path, code string) (flow.Diagnostic, bool) {
	for _, d := range ds {
		if d.Path == path && d.Code == code {
			return d, true
		}
	}
	return flow.Diagnostic{}, false
}

func TestParseReportsPlaceOfEachProblem(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		path      string
		code      string
		line, col int
	}{
		{
			name: "yaml extra key on an action",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      call: expression\n      expr: state.x\n      then: 1\n",
			path: "methods.m.do.then", code: "extra_forbidden", line: 8, col: 7,
		},
		{
			name: "yaml missing do points at the method",
			src:  "name: F\nmethods:\n  m:\n    start: true\n",
			path: "methods.m.do", code: "missing", line: 3, col: 3,
		},
		{
			name: "yaml missing name points at the document",
			src:  "\n\nmethods: {}\n",
			path: "name", code: "missing", line: 3, col: 1,
		},
		{
			name: "yaml bad method name",
			src:  "name: F\nmethods:\n  bad-name:\n    start: true\n    do: {call: expression, expr: '1'}\n",
			path: "methods.bad-name", code: "method_name", line: 3, col: 3,
		},
		{
			name: "yaml flow mapping nested in a step",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      call: each\n      in: state.items\n      do:\n        - {name: a, action: {call: expression, expr: item, bogus: 1}}\n",
			path: "methods.m.do.do[0].action.bogus", code: "extra_forbidden", line: 9, col: 60,
		},
		{
			name: "yaml wrong schema",
			src:  "schema: crewai.flow/v2\nname: F\n",
			path: "schema", code: "literal_error", line: 1, col: 1,
		},
		{
			name: "yaml unquoted date in with",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      ref: mod:fn\n      with:\n        when: 2024-01-01\n",
			path: "methods.m.do.with.when", code: "expression_data", line: 8, col: 9,
		},
		{
			name: "json extra key",
			src:  `{"name": "F", "methods": {"m": {"start": true, "do": {"call": "expression", "expr": "1", "x": 2}}}}`,
			path: "methods.m.do.x", code: "extra_forbidden", line: 1, col: 90,
		},
		{
			name: "json over lines",
			src:  "{\n  \"name\": \"F\",\n  \"state\": {\"type\": \"dict\", \"default\": 5}\n}\n",
			path: "state.default", code: "dict_type", line: 3, col: 29,
		},
		{
			name: "json step if is not a string",
			src:  "{\"name\": \"F\", \"methods\": {\"m\": {\"start\": true, \"do\": {\"call\": \"each\", \"in\": \"state.l\",\n  \"do\": [{\"name\": \"s\", \"if\": [1], \"action\": {\"call\": \"expression\", \"expr\": \"item\"}}]}}}}",
			path: "methods.m.do.do[0].if", code: "string_type", line: 2, col: 24,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := check(t, tt.src)
			d, ok := find(ds, tt.path, tt.code)
			require.True(t, ok, "no %s at %s in:\n%v", tt.code, tt.path, ds)
			assert.Equal(t, flow.SeverityError, d.Severity)
			assert.Equal(t, "flow.yaml", d.File)
			assert.Equal(t, [2]int{tt.line, tt.col}, [2]int{d.Line, d.Column}, d.String())
		})
	}
}

func TestCELProblemsPointInsideTheString(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		path      string
		code      string
		line, col int
	}{
		{
			name: "plain expression",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      call: expression\n      expr: state.x + score\n",
			path: "methods.m.do.expr", code: "cel_unknown_root", line: 7, col: 23,
		},
		{
			name: "double-quoted template",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      ref: mod:fn\n      with:\n        q: \"hello ${ stat.x }\"\n",
			path: "methods.m.do.with.q", code: "cel_unknown_root", line: 8, col: 22,
		},
		{
			name: "template in a list",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      ref: mod:fn\n      with:\n        q: [a, 'b ${foo}']\n",
			path: "methods.m.do.with.q[1]", code: "cel_unknown_root", line: 8, col: 21,
		},
		{
			name: "literal block",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      call: agent\n      with:\n        role: r\n        input: |\n          Answer this:\n          ${state.q} and ${nope}\n",
			path: "methods.m.do.with.input", code: "cel_unknown_root", line: 11, col: 28,
		},
		{
			name: "step if",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      call: each\n      in: state.items\n      do:\n        - name: s\n          if: other > 1\n          action: {call: expression, expr: item}\n",
			path: "methods.m.do.do[0].if", code: "cel_unknown_root", line: 10, col: 15,
		},
		{
			name: "each in does not allow item",
			src:  "name: F\nmethods:\n  m:\n    start: true\n    do:\n      call: each\n      in: item.list\n      do: [{name: s, action: {call: expression, expr: item}}]\n",
			path: "methods.m.do.in", code: "cel_unknown_root", line: 7, col: 11,
		},
		{
			name: "json string with escapes falls back to the string start",
			src:  "{\"name\": \"F\", \"methods\": {\"m\": {\"start\": true, \"do\": {\"ref\": \"a:b\", \"with\": {\"q\": \"\\u00e9 ${nope}\"}}}}}",
			path: "methods.m.do.with.q", code: "cel_unknown_root", line: 1, col: 83,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := check(t, tt.src)
			d, ok := find(ds, tt.path, tt.code)
			require.True(t, ok, "no %s at %s in:\n%v", tt.code, tt.path, ds)
			assert.Equal(t, [2]int{tt.line, tt.col}, [2]int{d.Line, d.Column}, d.String())
			assert.Contains(t, d.Message, " at "+tt.path)
		})
	}
}

func TestDiagnosticPathsUseCrewAIForm(t *testing.T) {
	src := `
name: Paths
methods:
  agent_m:
    start: true
    do:
      call: agent
      with: {role: r, input: "${bad1}"}
  tool_m:
    listen: agent_m
    do:
      call: tool
      ref: pkg:Tool
      with: {k: [x, {deep: "${bad2}"}]}
  crew_m:
    listen: tool_m
    do:
      call: crew
      with:
        agents: {a: {role: r, goal: g, backstory: b}}
        tasks: [{description: d, expected_output: o}]
        inputs: {topic: "${bad3}"}
      inputs: {extra: "${bad4}"}
  each_m:
    listen: crew_m
    do:
      call: each
      in: ${bad5}
      do:
        - name: s
          if: bad6
          action: {call: code, ref: pkg:fn, with: {v: "${bad7}"}}
  expr_m:
    listen: each_m
    do: {call: expression, expr: bad8}
`
	_, ds := check(t, src)
	want := []string{
		"methods.agent_m.do.with.input",
		"methods.tool_m.do.with.k[1].deep",
		"methods.crew_m.do.with.inputs.topic",
		"methods.crew_m.do.inputs.extra",
		"methods.each_m.do.in",
		"methods.each_m.do.do[0].if",
		"methods.each_m.do.do[0].action.with.v",
		"methods.expr_m.do.expr",
	}
	var got []string
	for _, d := range ds.Errors() {
		assert.Equal(t, "cel_unknown_root", d.Code, d.String())
		assert.Contains(t, d.Message, "unknown CEL root at "+d.Path+": ")
		got = append(got, d.Path)
	}
	assert.Equal(t, want, got)
}

func TestYAML11Scalars(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  any
	}{
		{"octal", "012", int64(10)},
		{"hex", "0x1F", int64(31)},
		{"binary", "0b101", int64(5)},
		{"underscores", "1_000", int64(1000)},
		{"sexagesimal", "190:20:30", int64(685230)},
		{"not octal", "08", "08"},
		{"exponent without dot is text", "1e5", "1e5"},
		{"float with signed exponent", "1.0e+5", 1e5},
		{"float keeps its kind", "1.0", 1.0},
		{"int keeps its kind", "1", int64(1)},
		{"yes", "yes", true},
		{"Off", "Off", false},
		{"y is text", "y", "y"},
		{"tilde", "~", nil},
		{"quoted yes", `"yes"`, "yes"},
		{"quoted number", `'012'`, "012"},
		{"explicit str tag", "!!str 12", "12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "name: F\nmethods:\n  m:\n    start: true\n    do: {ref: 'a:b', with: {v: " + tt.value + "}}\n"
			def, err := flow.Parse([]byte(src), "")
			require.NoError(t, err)
			assert.Equal(t, tt.want, def.Methods[0].Do.With["v"])
		})
	}
	t.Run("infinity", func(t *testing.T) {
		def, err := flow.Parse([]byte("name: F\nmethods:\n  m: {start: true, do: {ref: 'a:b', with: {v: -.inf}}}\n"), "")
		require.NoError(t, err)
		assert.True(t, math.IsInf(def.Methods[0].Do.With["v"].(float64), -1))
	})
}

func TestStartFollowsYAML11Booleans(t *testing.T) {
	tests := []struct {
		start  string
		always bool
		when   string
	}{
		{"yes", true, ""},
		{"On", true, ""},
		{"true", true, ""},
		{"1", true, ""},
		{`"yes"`, false, "yes"},
		{`"true"`, false, "true"},
		{"begin", false, "begin"},
		{"no", false, ""},
		{`""`, false, ""},
		{"null", false, ""},
		{"{}", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.start, func(t *testing.T) {
			src := "name: F\nmethods:\n  begin: {start: true, do: {call: expression, expr: '1'}}\n  m: {start: " + tt.start + ", do: {call: expression, expr: '1'}}\n"
			def, ds := check(t, src)
			require.False(t, ds.HasErrors(), "%v", ds)
			m := def.Method("m")
			assert.Equal(t, tt.always, m.Start.Always)
			if tt.when == "" {
				assert.Nil(t, m.Start.When)
			} else {
				require.NotNil(t, m.Start.When)
				assert.Equal(t, tt.when, m.Start.When.Event)
			}
		})
	}
}

func TestLaxFieldCoercion(t *testing.T) {
	src := "name: F\nconfig: {max_method_calls: '7', stream: 'yes', suppress_flow_events: 1}\nmethods:\n  m: {start: true, router: 'on', emit: [a], do: {call: expression, expr: \"'a'\"}}\n  n: {listen: a, do: {call: expression, expr: '1'}}\n"
	def, err := flow.Parse([]byte(src), "")
	require.NoError(t, err)
	assert.Equal(t, 7, def.Config.MaxMethodCalls)
	assert.True(t, def.Config.Stream)
	assert.True(t, def.Config.SuppressFlowEvents)
	assert.True(t, def.Method("m").Router)
}

func TestEmptyDocuments(t *testing.T) {
	for _, src := range []string{"", "  \n\t\n"} {
		_, err := flow.Parse([]byte(src), "x.yaml")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Flow declaration contents are empty")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "empty.yaml")
	require.NoError(t, os.WriteFile(path, []byte(" \n"), 0o600))
	_, err := flow.Load(path)
	require.Error(t, err)
	abs, _ := filepath.Abs(path)
	assert.Contains(t, err.Error(), "Flow declaration file is empty: "+abs)
}

func TestDocumentMustBeOneMapping(t *testing.T) {
	tests := []struct{ src, want string }{
		{"[]", "Flow declaration must contain a mapping"},
		{"false", "Flow declaration must contain a mapping"},
		{"0", "Flow declaration must contain a mapping"},
		{"~", "Flow declaration must contain a mapping"},
		{"null", "Flow declaration must contain a mapping"},
		{"just text", "Flow declaration must contain a mapping"},
		{"name: a\n---\nname: b\n", "expected a single document in the stream"},
		{"name: [unclosed\n", "cannot parse the document"},
		{"a: b: c\n", "cannot parse the document"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, ds := check(t, tt.src)
			require.Len(t, ds, 1)
			assert.Contains(t, ds[0].Message, tt.want)
			assert.Positive(t, ds[0].Line, ds[0].String())
		})
	}
}

func TestSyntaxErrorsHaveAPlace(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
	}{
		{"mapping in a plain value", "a: b: c\n", 1, 5},
		{"on a later line", "name: F\nmethods:\n  m: x: y\n", 3, 7},
		{"unclosed flow sequence", "name: F\nx: [a, b\n", 2, 4},
		{"flow sequence running on", "name: F\nx: [a, b\ny: 1\n", 3, 3},
		{"bad indentation", "name: F\nmethods:\n  a: 1\n b: 2\n", 4, 2},
		{"tab indentation", "name: F\nmethods:\n\ta: 1\n", 3, 1},
		{"json missing comma", "{\n  \"name\": \"F\"\n  \"methods\": {}\n}\n", 3, 3},
		{"second document", "name: F\n---\nname: G\n", 2, 1},
		{"json trailing garbage", "{\"name\": \"F\", \"methods\": {\"m\": {\"do\": 1}}}}\n", 1, 43},
		{"json unclosed", "{\n  \"name\": \"F\",\n  \"methods\": {\"m\": {\"start\": true}\n}\n", 1, 1},
		{"unterminated quote", "name: F\ndescription: \"abc\nmethods: {}\n", 2, 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := check(t, tt.src)
			require.Len(t, ds, 1)
			assert.Equal(t, "syntax", ds[0].Code)
			assert.Equal(t, [2]int{tt.line, tt.col}, [2]int{ds[0].Line, ds[0].Column}, ds[0].String())
			assert.NotContains(t, ds[0].Message, "line ")
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := flow.Load(filepath.Join(t.TempDir(), "nope.yaml"))
	var ds flow.Diagnostics
	require.ErrorAs(t, err, &ds)
	assert.Equal(t, "read_error", ds[0].Code)
	assert.Contains(t, err.Error(), "no such file")
}

func TestLoadSetsSourceAndDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.yaml")
	require.NoError(t, os.WriteFile(path, []byte("name: F\n"), 0o600))
	def, err := flow.Load(path)
	require.NoError(t, err)
	assert.Equal(t, path, def.Source)
	abs, _ := filepath.Abs(dir)
	assert.Equal(t, abs, def.Dir)
}

func TestEveryProblemIsReportedAtOnce(t *testing.T) {
	src := `
schema: crewai.flow/v9
methods:
  bad-name:
    start: true
    do: {call: expression, expr: state.x}
  a:
    start: true
    do: {call: expression, expr: "nope"}
  b:
    listen: b
    do: {call: tool}
  c:
    listen: a
    do:
      call: each
      in: state.rows
      do: []
  d:
    listen: {any: [a]}
    do: {call: script}
`
	_, ds := check(t, src)
	codes := map[string]bool{}
	for _, d := range ds.Errors() {
		codes[d.Code] = true
		assert.Positive(t, d.Line, d.String())
	}
	for _, c := range []string{"literal_error", "missing", "method_name", "cel_unknown_root", "self_listen", "each_empty", "condition_shape"} {
		assert.True(t, codes[c], "missing %s in\n%v", c, ds)
	}
	// missing: name, b.do.ref, d.do.code
	n := 0
	for _, d := range ds.Errors() {
		if d.Code == "missing" {
			n++
		}
	}
	assert.Equal(t, 3, n, "%v", ds)
	for i := 1; i < len(ds); i++ {
		assert.LessOrEqual(t, ds[i-1].Line, ds[i].Line, "diagnostics are sorted by line")
	}
}

func TestNoProblemIsReportedTwice(t *testing.T) {
	tests := []string{
		"name: F\nmethods:\n  a: {start: true, do: {call: tool}}\n",
		"name: F\nmethods:\n  a: {start: true, do: {}}\n",
		"name: F\nmethods:\n  a: {start: true, do: {call: crew, with: 5}}\n",
		"name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n  b: {listen: 5, do: {call: expression, expr: '1'}}\n",
	}
	for _, src := range tests {
		_, ds := check(t, src)
		assert.Len(t, ds, 1, "%s\n%v", src, ds)
	}
}

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

func TestDiagnosticFormat(t *testing.T) {
	d := flow.Diagnostic{File: "f.yaml", Line: 3, Column: 7, Path: "methods.m.do", Severity: flow.SeverityError, Code: "x", Message: "boom"}
	assert.Equal(t, "f.yaml:3:7: error: methods.m.do: boom", d.String())
	w := flow.Diagnostic{Severity: flow.SeverityWarning, Message: "hm"}
	assert.Equal(t, "warning: hm", w.String())
	assert.Equal(t, "flow: f.yaml:3:7: error: methods.m.do: boom", flow.Diagnostics{d}.Error())
	multi := flow.Diagnostics{d, w}.Error()
	assert.True(t, strings.HasPrefix(multi, "flow: 2 problems:\n"), multi)
	assert.True(t, flow.Diagnostics{w, d}.HasErrors())
	assert.False(t, flow.Diagnostics{w}.HasErrors())
}

func TestHostileDocumentsAreBounded(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		laughs += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	_, ds := check(t, laughs)
	require.True(t, ds.HasErrors())
	assert.Contains(t, ds.Error(), "too many nodes")

	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	_, ds = check(t, "name: F\nx: "+deep+"\n")
	require.True(t, ds.HasErrors())
}
