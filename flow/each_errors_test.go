package flow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// A CEL error inside an each step names the method, the step and the
// index of the item it failed on.
func TestEachStepErrorsNameTheStepAndItem(t *testing.T) {
	tests := []struct {
		name, step, want string
	}{
		{"action", `{name: add, action: {call: expression, expr: "item + 1"}}`, `method "m" failed: step "add" (item 3): failed to evaluate CEL expression 'item + 1'`},
		{"if", `{name: pick, if: "item > 0", action: {call: expression, expr: item}}`, `method "m" failed: step "pick" (item 3): failed to evaluate CEL expression 'item > 0'`},
		{"if not a bool", `{name: pick, if: "item == 'x' ? 'yes' : true", action: {call: expression, expr: item}}`, `method "m" failed: step "pick" (item 3): if expression must evaluate to a boolean (got a string)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := mustParse(t, `
name: Each
state: {type: dict, default: {items: [1, 2, 3, x]}}
methods:
  m:
    start: true
    do:
      call: each
      in: state.items
      do:
        - `+tt.step+`
`)
			_, err := flow.NewEngine().Run(context.Background(), def, nil)
			require.Error(t, err)
			var me *flow.MethodError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, "m", me.Method)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestEachInErrorsSayEachIn(t *testing.T) {
	def := mustParse(t, "name: Each\nmethods:\n  m: {start: true, do: {call: each, in: state.missing, do: [{name: s, action: {call: expression, expr: item}}]}}\n")
	_, err := flow.NewEngine().Run(context.Background(), def, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `method "m" failed: each.in: failed to evaluate CEL expression 'state.missing'`)
}
