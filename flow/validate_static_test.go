package flow_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// CEL that fails whatever the flow's data is an error at load, at its line
// and column: unknown functions, calls no overload accepts, and constant
// parts that fail when evaluated.
func TestCELThatCertainlyFailsIsReportedAtLoad(t *testing.T) {
	tests := []struct {
		name, field, path, code, at, want string
	}{
		{"unknown function in a step", `{call: each, in: state.items, do: [{name: s, action: {call: expression, expr: "item.upper()"}}]}`,
			"methods.m.do.do[0].action.expr", "cel_unknown_function", "upper()", "did you mean 'upperAscii'?"},
		{"failing conversion", `{call: expression, expr: "int('abc')"}`,
			"methods.m.do.expr", "cel_always_fails", "int('abc')", "type conversion error"},
		{"invalid pattern", `{call: expression, expr: "state.name.matches('(')"}`,
			"methods.m.do.expr", "cel_always_fails", "state.name", "invalid regular expression"},
		{"type error between literals", `{call: expression, expr: "state.n + (1 + 'a')"}`,
			"methods.m.do.expr", "cel_type", "+ 'a'", "no matching overload for '_+_' applied to '(int, string)'"},
		{"typed function result", `{call: expression, expr: "size(state.items) + 'a'"}`,
			"methods.m.do.expr", "cel_type", "+ 'a'", "(int, string)"},
		{"in a template", `{ref: "m:f", with: {q: "Ticket ${state.x + int('abc')}"}}`,
			"methods.m.do.with.q", "cel_always_fails", "int('abc')}", "the part"},
		{"in an each condition", `{call: each, in: state.items, do: [{name: s, if: "1 / 0 == item", action: {call: expression, expr: item}}]}`,
			"methods.m.do.do[0].if", "cel_always_fails", "1 / 0", "division by zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "name: F\nmethods:\n  m:\n    start: true\n    do: " + tt.field + "\n"
			_, ds := flow.Check([]byte(src), "f.yaml")
			require.Len(t, ds.Errors(), 1, "%v", ds)
			d := ds.Errors()[0]
			assert.Equal(t, tt.code, d.Code)
			assert.Equal(t, tt.path, d.Path)
			assert.Contains(t, d.Message, tt.want)
			assert.Equal(t, 5, d.Line)
			assert.Equal(t, strings.Index(src, tt.at)-strings.Index(src, "    do:")+1, d.Column, d.Message)
		})
	}
}

// Expressions that may work at run time are not reported: the variables
// are dynamic, and cel-go compares and tests equality across types.
func TestCELThatMayWorkIsAccepted(t *testing.T) {
	for _, expr := range []string{
		"state.x == 1 ? 'a' : 2",
		"1 == 1.0",
		"state.n < 1.5",
		"state.s in ['a', 1]",
		"'%s'.format([state.x])",
		"state.items.map(i, i.name)",
		"size(state.items) > 0 ? state.items[0] : null",
		"has(state.x.y)",
		"[1, 'a']",
		"{'a': 1}.a + 1",
		"int(state.x) + 1",
		"timestamp(state.t)",
		"dyn(state.x) + 'a'",
		"false && 1 / 0 == 1",
		"state.name.matches('^a+$')",
	} {
		src := "name: F\nmethods:\n  m: {start: true, do: {call: expression, expr: \"" + expr + "\"}}\n"
		_, ds := flow.Check([]byte(src), "f.yaml")
		assert.Empty(t, ds, expr)
	}
}
