package flow_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/flow"
)

// celFlow is a flow whose method "work" evaluates expr after a start
// method, with state.s = "ab" and state.items from the inputs.
func celFlow(t *testing.T, expr string) *flow.Definition {
	t.Helper()
	return mustParse(t, fmt.Sprintf(`
name: Limits
state: {type: dict, default: {s: ab}}
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  work: {listen: begin, do: {call: expression, expr: %q}}
`, expr))
}

// runLimited runs def with a deadline as a safety net: an expression the
// limits do not stop would run for hours.
func runLimited(t *testing.T, eng *flow.Engine, def *flow.Definition, items int) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := eng.Run(ctx, def, map[string]any{"items": make([]any, items)})
	return err
}

func doubling(n int) string {
	var b strings.Builder
	b.WriteString("[state.s]")
	for i := range n {
		fmt.Fprintf(&b, ".map(a%d, a%d + a%d)", i, i, i)
	}
	return b.String()
}

func TestCELLimitsStopAMethod(t *testing.T) {
	tests := []struct {
		name, expr string
		want       error
	}{
		{"string doubled 40 times", doubling(40), cel.ErrSizeLimit},
		{"10^9 comprehension steps", "state.items.all(a, state.items.all(b, state.items.all(c, true)))", cel.ErrCostLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := runLimited(t, flow.NewEngine(), celFlow(t, tt.expr), 1000)
			require.ErrorIs(t, err, tt.want)
			var me *flow.MethodError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, "work", me.Method)
			assert.Contains(t, err.Error(), `method "work"`)
		})
	}
}

func TestWithCELLimits(t *testing.T) {
	loop := "state.items.all(a, state.items.all(b, true))" // 10,000 steps
	tests := []struct {
		name   string
		limits cel.Limits
		expr   string
		want   error
	}{
		{"defaults", cel.Limits{}, loop, nil},
		{"a lower cost", cel.Limits{Cost: 1000}, loop, cel.ErrCostLimit},
		{"no cost limit", cel.Limits{Cost: math.MaxUint64}, "state.items.all(a, state.items.all(b, state.items.all(c, true)))", nil},
		{"a lower size", cel.Limits{Size: 100}, "state.s + '" + strings.Repeat("x", 100) + "'", cel.ErrSizeLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := runLimited(t, flow.NewEngine(flow.WithCELLimits(tt.limits)), celFlow(t, tt.expr), 100)
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.want)
			}
		})
	}
}
