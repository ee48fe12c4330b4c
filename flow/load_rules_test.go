package flow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

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
