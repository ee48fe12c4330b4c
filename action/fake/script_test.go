package fake_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/action/fake"
	"github.com/troupe-dev/troupe/llm"
)

const script = `
tools:
  - name: lookup_order
    description: Look up an order by its id.
    parameters:
      type: object
      properties: {order_id: {type: string}}
      required: [order_id]
    replies:
      - match: {order_id: A-1001}
        result: {status: shipped, eta: tomorrow, items: 2, weight: 1.5}
      - match: "(?i)B-"
        times: 1
        result: "order not found"
      - match: 'C-'
        error: "order service down"
      - result: "unknown order"
  - name: now
    replies:
      - result: noon
`

// parse parses a script and returns its tools by name.
func parse(t *testing.T, yaml string) map[string]*fake.Tool {
	t.Helper()
	tools, err := fake.ParseTools([]byte(yaml), "tools.yaml")
	require.NoError(t, err)
	byName := map[string]*fake.Tool{}
	for _, tool := range tools {
		ft, ok := tool.(*fake.Tool)
		require.True(t, ok, "%T", tool)
		byName[tool.Spec().Name] = ft
	}
	return byName
}

func TestParseTools(t *testing.T) {
	tools := parse(t, script)
	require.Len(t, tools, 2)
	lookup := tools["lookup_order"]
	assert.Equal(t, llm.ToolSpec{
		Name:        "lookup_order",
		Description: "Look up an order by its id.",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"order_id": map[string]any{"type": "string"}},
			"required":   []any{"order_id"},
		},
	}, lookup.Spec())
	assert.Equal(t, map[string]any{"type": "object"}, tools["now"].Spec().Parameters)

	tests := []struct {
		args    string
		want    any
		wantErr string
	}{
		{`{"order_id": "A-1001"}`, map[string]any{"status": "shipped", "eta": "tomorrow", "items": int64(2), "weight": 1.5}, ""},
		{`{"order_id": "b-2"}`, "order not found", ""},
		{`{"order_id": "B-3"}`, "unknown order", ""},
		{`{"order_id": "C-4"}`, nil, "order service down"},
		{`{"order_id": 7}`, nil, "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, err := lookup.Call(t.Context(), json.RawMessage(tt.args))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseToolsForms(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		args string
		want any
	}{
		{"a bare list of tools", "- name: t\n  replies: [{result: hi}]\n", `{}`, "hi"},
		{"no replies key", "tools:\n  - name: t\n", `{}`, nil},
		{"anchors and aliases", "tools:\n  - name: t\n    replies:\n      - &r {match: {a: 1}, times: 1, result: aliased}\n      - *r\n", `{"a": 1}`, "aliased"},
		{"YAML 1.2 scalars", "- name: t\n  replies: [{result: [yes, 1, 1.0, null, true, 2024-01-01, 0x10]}]\n", `{}`,
			[]any{"yes", int64(1), 1.0, nil, true, "2024-01-01", int64(16)}},
		{"integer beyond int64", "- name: t\n  replies: [{result: 99999999999999999999}]\n", `{}`, 1e20},
		{"block text", "- name: t\n  replies:\n    - result: |\n        line one\n        line two\n", `{}`, "line one\nline two\n"},
		{"match by a number compares values", "- name: t\n  replies: [{match: {n: 2}, result: two}]\n", `{"n": 2.0}`, "two"},
		{"scalar match is text as written", "- name: t\n  replies: [{match: 42, result: found}]\n", `{"n": 420}`, "found"},
		{"null match answers anything", "- name: t\n  replies: [{match: null, result: any}]\n", `{"n": 1}`, "any"},
		{"delay in seconds", "- name: t\n  replies: [{result: hi, delay: 0.001}]\n", `{}`, "hi"},
		{"delay as a duration", "- name: t\n  replies: [{result: hi, delay: 1ms}]\n", `{}`, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := parse(t, tt.yaml)["t"]
			require.NotNil(t, tool)
			got, err := tool.Call(t.Context(), json.RawMessage(tt.args))
			if tt.name == "no replies key" {
				require.ErrorIs(t, err, fake.ErrUnmatched)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseToolsErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"empty", "", "fake: tools.yaml:1:1: the script is empty"},
		{"only a comment", "# nothing\n", "fake: tools.yaml:1:1: the script is empty"},
		{"scalar root", "hello\n", "fake: tools.yaml:1:1: want a mapping with tools, or a list of tools"},
		{"unknown top key", "tool: []\n", "fake: tools.yaml:1:1: tool: unknown key; want tools"},
		{"tools not a list", "tools: {name: t}\n", "fake: tools.yaml:1:8: tools: want a list of tools"},
		{"tool not a mapping", "tools:\n  - t\n", "fake: tools.yaml:2:5: tools[0]: want a mapping"},
		{"missing name", "tools:\n  - description: d\n", "fake: tools.yaml:2:5: tools[0].name: missing tool name"},
		{"empty name", "tools:\n  - name: ''\n", "fake: tools.yaml:2:11: tools[0].name: missing tool name"},
		{"name not a string", "tools:\n  - name: [a]\n", "fake: tools.yaml:2:11: tools[0].name: want a string"},
		{"duplicate tool", "tools:\n  - name: t\n  - name: t\n", `fake: tools.yaml:3:11: tools[1].name: tool "t" is defined twice`},
		{"unknown tool key", "tools:\n  - name: t\n    reply: []\n", "fake: tools.yaml:3:5: tools[0].reply: unknown key; want name, description, parameters or replies"},
		{"duplicate key", "tools:\n  - name: t\n    name: u\n", "fake: tools.yaml:3:5: tools[0].name: duplicate key"},
		{"parameters not a mapping", "tools:\n  - name: t\n    parameters: object\n", "fake: tools.yaml:3:17: tools[0].parameters: want a JSON Schema mapping"},
		{"invalid parameters", "tools:\n  - name: t\n    parameters: {type: 5}\n", "fake: tools.yaml:3:17: tools[0].parameters: schema: invalid JSON Schema"},
		{"replies not a list", "tools:\n  - name: t\n    replies: {result: 1}\n", "fake: tools.yaml:3:14: tools[0].replies: want a list of replies"},
		{"reply not a mapping", "tools:\n  - name: t\n    replies: [ok]\n", "fake: tools.yaml:3:15: tools[0].replies[0]: want a mapping"},
		{"unknown reply key", "- name: t\n  replies:\n    - text: a\n", "fake: tools.yaml:3:7: tools[0].replies[0].text: unknown key; want match, times, result, error or delay"},
		{"times not int", "- name: t\n  replies:\n    - {result: a, times: many}\n", `fake: tools.yaml:3:26: tools[0].replies[0].times: want an integer, got "many"`},
		{"times zero", "- name: t\n  replies:\n    - {result: a, times: 0}\n", "tools[0].replies[0].times: must be a positive integer, got 0"},
		{"bad regexp", "- name: t\n  replies:\n    - result: a\n    - match: \"(\"\n      result: b\n", `fake: tools.yaml:4:7: tools[0].replies[1].match: invalid RE2 expression "("`},
		{"match a list", "- name: t\n  replies:\n    - {match: [a], result: b}\n", "fake: tools.yaml:3:15: tools[0].replies[0].match: want a mapping of arguments, or an RE2 expression"},
		{"result and error", "- name: t\n  replies:\n    - result: a\n      error: b\n", "fake: tools.yaml:4:7: tools[0].replies[0].error: a reply has either result or error, not both"},
		{"empty error", "- name: t\n  replies:\n    - error: ''\n", "fake: tools.yaml:3:14: tools[0].replies[0].error: want the error's message"},
		{"bad delay", "- name: t\n  replies:\n    - {result: a, delay: soon}\n", "tools[0].replies[0].delay: want a duration"},
		{"negative delay", "- name: t\n  replies:\n    - {result: a, delay: -1s}\n", "tools[0].replies[0].delay: want a duration"},
		{"infinite result", "- name: t\n  replies:\n    - result: [1, .inf]\n", "fake: tools.yaml:3:19: tools[0].replies[0].result[1]: .inf is not a JSON number"},
		{"non-scalar key", "- name: t\n  replies:\n    - result: {[a]: 1}\n", "fake: tools.yaml:3:16: tools[0].replies[0].result: want a text key"},
		{"merge key", "- name: t\n  replies:\n    - result: {<<: {a: 1}}\n", "tools[0].replies[0].result.<<: merge keys (<<) are not supported"},
		{"duplicate data key", "- name: t\n  replies:\n    - match: {a: 1, a: 2}\n", "fake: tools.yaml:3:21: tools[0].replies[0].match.a: duplicate key"},
		{"second document", "- name: t\n---\n- name: u\n", "fake: tools.yaml:2:1: a second YAML document"},
		{"unknown anchor", "- name: t\n  replies: [{result: *nope}]\n", "fake: tools.yaml:2:22: invalid YAML: unknown anchor 'nope' referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools, err := fake.ParseTools([]byte(tt.yaml), "tools.yaml")
			require.Error(t, err)
			assert.Nil(t, tools)
			assert.Contains(t, err.Error(), tt.want)
			var se *fake.ScriptError
			assert.ErrorAs(t, err, &se)
		})
	}
}

func TestParseToolsSyntaxErrorsHavePositions(t *testing.T) {
	tests := []struct {
		name         string
		yaml         string
		line, column int
		msg          string
	}{
		{"mapping in a plain value", "tools:\n  - name: a\n    description: b: c\n", 3, 19, "mapping values are not allowed"},
		{"tab indentation", "tools:\n  - name: a\n\tdescription: b\n", 3, 1, "tab character"},
		{"unclosed flow sequence", "tools:\n  - name: a\n    replies: [{result: 1}\n    x: 1\n", 4, 5, "did not find expected ',' or ']'"},
		{"bad indentation", "tools:\n  - name: a\n replies: []\n", 3, 2, "did not find expected key"},
		{"unclosed quote at the end", "tools:\n  - name: \"a\n", 2, 11, "found unexpected end of stream"},
		{"unclosed single quote with an escaped one", "tools:\n  - name: 'it''s\n    replies: []\n", 2, 11, "found unexpected end of stream"},
		{"unclosed quote in a flow mapping", "tools:\n  - name: a\n    replies: [{result: \"x}]\n  - name: b\n", 3, 24, "found unexpected end of stream"},
		{"key without a colon", "tools:\n  - name: a\n    description\n    replies: []\n", 3, 16, "could not find expected ':'"},
		{"a comment is not a quote", "tools:\n  - name: a # it's \"x\n    description: b: c\n", 3, 19, "mapping values are not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fake.ParseTools([]byte(tt.yaml), "")
			var se *fake.ScriptError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, [2]int{tt.line, tt.column}, [2]int{se.Line, se.Column}, err.Error())
			assert.Contains(t, se.Msg, tt.msg)
			assert.Regexp(t, `^fake: line \d+, column \d+: invalid YAML: `, err.Error())
		})
	}
}

func TestParseToolsBoundsAliasExpansion(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n" +
		"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n" +
		"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
	yaml := "tools:\n  - name: t\n    replies:\n      - result:\n" + indent(bomb, "          ")
	start := time.Now()
	_, err := fake.ParseTools([]byte(yaml), "")
	require.ErrorContains(t, err, "the script expands to more than")
	assert.Less(t, time.Since(start), 5*time.Second)
}

func indent(s, prefix string) string {
	out := ""
	for _, line := range splitLines(s) {
		out += prefix + line + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var lines []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		lines = append(lines, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return lines
}

func TestLoadTools(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(good, []byte(script), 0o600))
	tools, err := fake.LoadTools(good)
	require.NoError(t, err)
	reg, err := action.NewTools(tools...)
	require.NoError(t, err)
	assert.Equal(t, []string{"lookup_order", "now"}, reg.Names())

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("tools:\n  - name: t\n    replies: [{times: 0}]\n"), 0o600))
	_, err = fake.LoadTools(bad)
	var se *fake.ScriptError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, bad, se.File)
	assert.Equal(t, "fake: "+bad+":3:23: tools[0].replies[0].times: must be a positive integer, got 0", err.Error())

	broken := filepath.Join(dir, "broken.yaml")
	require.NoError(t, os.WriteFile(broken, []byte("tools: [\n"), 0o600))
	_, err = fake.LoadTools(broken)
	require.ErrorContains(t, err, "fake: "+broken+":1:8: invalid YAML: ")

	_, err = fake.LoadTools(filepath.Join(dir, "missing.yaml"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
