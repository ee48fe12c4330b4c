package flow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/flow"
)

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
