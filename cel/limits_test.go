package cel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hundred is a list literal of 100 ints.
func hundred() string {
	items := make([]string, 100)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// doubling writes a small expression whose value doubles a string n times:
// ['ab'].map(a0, a0 + a0).map(a1, a1 + a1)...
func doubling(n int) string {
	var b strings.Builder
	b.WriteString("['ab']")
	for i := range n {
		fmt.Fprintf(&b, ".map(a%d, a%d + a%d)", i, i, i)
	}
	return b.String()
}

// nested writes l.all(a0, l.all(a1, ... true)), which takes len(l)^depth steps.
func nested(list string, depth int) string {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, "%s.all(a%d, ", list, i)
	}
	b.WriteString("true")
	b.WriteString(strings.Repeat(")", depth))
	return b.String()
}

// evalLimited evaluates expr in env against vars, with a deadline as a
// safety net: an expression the limits do not stop would run for hours.
func evalLimited(t *testing.T, env *Env, expr string, vars *Vars) error {
	t.Helper()
	p, err := env.Compile(expr)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = p.Eval(ctx, vars)
	return err
}

func TestLimitsStopResourceBombs(t *testing.T) {
	env, err := NewEnv()
	require.NoError(t, err)
	megabyte := strings.Repeat("x", 1<<20)
	vars := &Vars{
		State:   map[string]any{"s": megabyte, "k": strings.Repeat("k", 10_000), "l": make([]any, 100)},
		Item:    make([]any, 1000),
		HasItem: true,
	}
	tests := []struct {
		name, expr string
		want       error
	}{
		{"a string doubled 40 times", doubling(40), ErrSizeLimit},
		{"10^10 comprehension steps over a literal", nested(hundred(), 5), ErrCostLimit},
		{"10^9 comprehension steps over data", nested("item", 3), ErrCostLimit},
		{"join of one large string many times", "state.l.map(x, state.s).join()", ErrSizeLimit},
		{"join with a separator", "item.map(x, 'ab').join(state.s)", ErrSizeLimit},
		{"replace of every gap", "state.k.replace('', state.k)", ErrSizeLimit},
		{"replace of every letter", "state.k.replace('k', state.k)", ErrSizeLimit},
		{"format of one large string many times", "'%s'.format([state.l.map(x, state.s)])", ErrSizeLimit},
		{"a result that repeats a value", "state.l.map(x, state.s)", ErrSizeLimit},
		{"a result of nested shared lists", nestedPairs(40), ErrSizeLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := evalLimited(t, env, tt.expr, vars)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
			var le *LimitError
			require.ErrorAs(t, err, &le)
			var ee *EvalError
			require.ErrorAs(t, err, &ee)
			assert.Contains(t, err.Error(), "cel.Limits.")
		})
	}
}

// nestedPairs writes [1].map(a0, [a0, a0]).map(a1, [a1, a1])...: a value
// that is small in memory, since each level holds the previous one twice,
// and whose copy doubles n times.
func nestedPairs(n int) string {
	var b strings.Builder
	b.WriteString("[1]")
	for i := range n {
		fmt.Fprintf(&b, ".map(a%d, [a%d, a%d])", i, i, i)
	}
	return b.String()
}

func TestLimitErrorMessages(t *testing.T) {
	env, err := NewEnv(WithLimits(Limits{Cost: 1000, Size: 100}))
	require.NoError(t, err)
	err = evalLimited(t, env, nested(hundred(), 2), nil)
	assert.EqualError(t, err, "failed to evaluate CEL expression '"+nested(hundred(), 2)+"': cel: cost limit exceeded: the expression does more than 1000 units of work (raise cel.Limits.Cost to allow it)")
	err = evalLimited(t, env, "'x' + '"+strings.Repeat("y", 100)+"'", nil)
	assert.ErrorContains(t, err, "cel: size limit exceeded: the expression produces a string of 101 bytes, more than 100 bytes (raise cel.Limits.Size to allow it)")
	err = evalLimited(t, env, "[1, 2, 3, 4, 5, 6, 7].map(x, x)", nil)
	assert.ErrorContains(t, err, "cel: size limit exceeded: the expression produces a list of 7 elements, more than 100 bytes (raise cel.Limits.Size to allow it)")
}

func TestWithLimits(t *testing.T) {
	loop := nested(hundred(), 2) // 10,000 steps
	long := "'" + strings.Repeat("y", 1000) + "' + 'x'"
	// Each call scans state.s, 20,000 bytes: about 200 units.
	scans := func(n int) string {
		return strings.TrimSuffix(strings.Repeat("state.s.contains('b') || ", n), " || ")
	}
	vars := &Vars{State: map[string]any{"s": strings.Repeat("a", 20_000)}}
	tests := []struct {
		name    string
		limits  Limits
		expr    string
		wantErr error
	}{
		{"default cost allows ten thousand steps", Limits{}, loop, nil},
		{"a lower cost limit", Limits{Cost: 5000}, loop, ErrCostLimit},
		{"no cost limit", Limits{Cost: math.MaxUint64}, nested(hundred(), 3), nil},
		{"a lower size limit", Limits{Size: 1000}, long, ErrSizeLimit},
		{"many calls are tracked", Limits{Cost: 1000}, scans(40), ErrCostLimit},
		{"a few calls without loops are not", Limits{Cost: 1000}, scans(10), nil},
		{"no size limit", Limits{Size: math.MaxInt}, long, nil},
		{"default size allows a kilobyte", Limits{}, long, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := NewEnv(WithLimits(tt.limits))
			require.NoError(t, err)
			err = evalLimited(t, env, tt.expr, vars)
			if tt.wantErr == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.wantErr)
			}
		})
	}
}

// The guarded functions give what the ones they guard give when the result
// is small enough.
func TestGuardedFunctionsKeepTheirMeaning(t *testing.T) {
	guarded, err := NewEnv()
	require.NoError(t, err)
	plain, err := NewEnv(WithLimits(Limits{Size: math.MaxInt}))
	require.NoError(t, err)
	for _, expr := range []string{
		"['a', 'b'].join()", "['a', 'b'].join(', ')", "[].join('-')",
		"'hello hello'.replace('he', 'we')", "'hello hello'.replace('he', 'we', 1)",
		"'hello hello'.replace('he', 'we', 0)", "'hello'.replace('', '_')", "'héllo'.replace('', '_', -1)",
		"'%s and %d'.format(['x', 3])", "'%s'.format([[1, {'a': 'b'}]])",
	} {
		want := evalIn(t, plain, expr)
		assert.Equal(t, want, evalIn(t, guarded, expr), expr)
	}
	assert.Equal(t, "_h_e_l_l_o_", evalIn(t, guarded, "'hello'.replace('', '_')"))
}

func evalIn(t *testing.T, env *Env, expr string) any {
	t.Helper()
	p, err := env.Compile(expr)
	require.NoError(t, err, expr)
	got, err := p.Eval(context.Background(), nil)
	require.NoError(t, err, expr)
	return got
}

// Cost tracking costs allocations per evaluation, so expressions whose cost
// is bounded (statically within the limit, or a few calls without loops)
// run without it.
func TestBoundedExpressionsAreNotTracked(t *testing.T) {
	limited, err := NewEnv()
	require.NoError(t, err)
	untracked, err := NewEnv(WithLimits(Limits{Cost: math.MaxUint64}))
	require.NoError(t, err)
	vars := &Vars{State: map[string]any{"x": int64(1), "items": []any{int64(1), int64(2)}},
		Outputs: map[string]any{"a": "b", "n": int64(2), "m": int64(3)}}
	allocs := func(env *Env, expr string) float64 {
		p, err := env.Compile(expr)
		require.NoError(t, err)
		return testing.AllocsPerRun(100, func() {
			if _, err := p.Eval(context.Background(), vars); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, expr := range []string{"state.x + 1", "outputs.a == 'b'", "[1, 2, 3].exists(i, i == state.x)",
		"outputs.n + outputs.m + outputs.n + outputs.m + state.x", "'x' + outputs.a"} {
		assert.Equal(t, allocs(untracked, expr), allocs(limited, expr), expr)
	}
	// A loop over data is tracked.
	assert.Greater(t, allocs(limited, "state.items.all(i, i > 0)"), allocs(untracked, "state.items.all(i, i > 0)"))
}

func TestLimitErrorIsTyped(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &EvalError{Expr: "x", Cause: &LimitError{Err: ErrCostLimit, Limit: 5}})
	assert.True(t, errors.Is(err, ErrCostLimit))
	assert.False(t, errors.Is(err, ErrSizeLimit))
}
