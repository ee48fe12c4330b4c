package cel

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEvalNormalisesResults(t *testing.T) {
	vars := &Vars{
		State: map[string]any{
			"x": int64(41), "f": 1.5, "l": []any{int64(1), int64(2)},
			"d":     map[string]any{"a": int64(1), "b": []any{true, nil}},
			"goInt": 7, "strs": []string{"a"}, "smap": map[string]string{"k": "v"},
		},
		Outputs: map[string]any{"step": "done"},
	}
	tests := []struct {
		name string
		expr string
		want any
	}{
		{"int stays int64", "state.x + 1", int64(42)},
		{"double stays float64", "state.f * 2.0", 3.0},
		{"integral double stays float64", "2.0", 2.0},
		{"string", "outputs.step + '!'", "done!"},
		{"bool", "state.x > 40", true},
		{"null", "null", nil},
		{"uint becomes int64", "42u", int64(42)},
		{"huge uint becomes float64", "18446744073709551615u", float64(math.MaxUint64)},
		{"bytes become base64", "b'abc'", "YWJj"},
		{"utc timestamp", "timestamp('2024-01-02T03:04:05.678Z')", "2024-01-02T03:04:05Z"},
		{"timestamp with offset", "timestamp('2024-01-02T03:04:05+05:30')", "2024-01-02T03:04:05+05:30"},
		{"duration in whole seconds", "duration('90m')", "5400s"},
		{"negative duration truncates toward zero", "duration('-1.5s')", "-1s"},
		{"map keys stringified", "{1: 'a', true: 'b', 2u: 'c'}", map[string]any{"1": "a", "true": "b", "2": "c"}},
		{"list mixes types", "[1, 2.5, 'x', null, [true]]", []any{int64(1), 2.5, "x", nil, []any{true}}},
		{"state list copied", "state.l", []any{int64(1), int64(2)}},
		{"state map copied", "state.d", map[string]any{"a": int64(1), "b": []any{true, nil}}},
		{"go int input becomes int64", "state.goInt", int64(7)},
		{"string slice input", "state.strs", []any{"a"}},
		{"string map input", "state.smap", map[string]any{"k": "v"}},
		{"computed list", "state.l.map(i, i * 10)", []any{int64(10), int64(20)}},
		{"map of computed values", "{'sum': state.x + 1, 'half': state.f / 3.0}", map[string]any{"sum": int64(42), "half": 0.5}},
		{"short circuit hides error", "{'ok': false && 1/0 == 1}", map[string]any{"ok": false}},
		{"exists short circuit", "['a', 'b'].exists(t, t == 'a' || 1/0 == 1)", true},
		{"size of null is zero", "size(null)", int64(0)},
		{"size of string", "size('héllo')", int64(5)},
		{"member size", "state.l.size()", int64(2)},
		{"ext strings", "' Hi '.trim().lowerAscii()", "hi"},
		{"wrapped expression", "  ${ state.x }  ", int64(41)},
		{"heterogeneous equality", "1 == 1.0", true},
	}
	env := newTestEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := env.Compile(tt.expr)
			require.NoError(t, err)
			got, err := p.Eval(context.Background(), vars)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEvalResultDoesNotAliasState(t *testing.T) {
	env := newTestEnv(t)
	inner := map[string]any{"a": int64(1)}
	vars := &Vars{State: map[string]any{"d": inner}}
	p, err := env.Compile("state.d")
	require.NoError(t, err)
	got, err := p.Eval(context.Background(), vars)
	require.NoError(t, err)
	got.(map[string]any)["a"] = int64(2)
	assert.Equal(t, int64(1), inner["a"])
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want string
	}{
		{"int plus double", "1 + 1.0", "failed to evaluate CEL expression '1 + 1.0': no such overload"},
		{"error inside map", "{'a': 1/0}", `failed to evaluate CEL expression "{'a': 1/0}": division by zero`},
		{"error inside list", "[1, 1 % 0]", "failed to evaluate CEL expression '[1, 1 % 0]': modulus by zero"},
		{"missing key", "state.nope", "failed to evaluate CEL expression 'state.nope': no such key: nope"},
		{"item unbound", "item.x", "failed to evaluate CEL expression 'item.x': no such attribute(s): item"},
		{"type values are not JSON", "type(1)", "failed to evaluate CEL expression 'type(1)': Object of type type is not JSON serializable"},
	}
	env := newTestEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := env.Compile(tt.expr)
			require.NoError(t, err)
			_, err = p.Eval(context.Background(), &Vars{State: map[string]any{}})
			var ee *EvalError
			require.ErrorAs(t, err, &ee)
			assert.EqualError(t, err, tt.want)
			assert.NotNil(t, errors.Unwrap(err))
		})
	}
}

func TestEvalItem(t *testing.T) {
	env := newTestEnv(t)
	p, err := env.Compile("item.value + ':' + outputs.prev")
	require.NoError(t, err)
	got, err := p.Eval(context.Background(), &Vars{
		Outputs: map[string]any{"prev": "p"},
		Item:    map[string]any{"value": "v"},
		HasItem: true,
	})
	require.NoError(t, err)
	assert.Equal(t, "v:p", got)

	p, err = env.Compile("item == null")
	require.NoError(t, err)
	got, err = p.Eval(context.Background(), &Vars{HasItem: true})
	require.NoError(t, err)
	assert.Equal(t, true, got)
}

func TestEvalNilVars(t *testing.T) {
	env := newTestEnv(t)
	p, err := env.Compile("1 + 2")
	require.NoError(t, err)
	got, err := p.Eval(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, int64(3), got)
}

func TestEvalCancelledContext(t *testing.T) {
	env := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, expr := range []string{"state.x", "[1, 2].all(i, i > 0)"} {
		p, err := env.Compile(expr)
		require.NoError(t, err)
		_, err = p.Eval(ctx, &Vars{State: map[string]any{"x": int64(1)}})
		require.ErrorIs(t, err, context.Canceled, expr)
	}
}

func TestEvalInterruptsLongComprehension(t *testing.T) {
	env := newTestEnv(t)
	big := make([]any, 200_000)
	for i := range big {
		big[i] = int64(i)
	}
	p, err := env.Compile("state.big.all(i, state.big.exists(j, j == i))")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = p.Eval(ctx, &Vars{State: map[string]any{"big": big}})
	require.ErrorIs(t, err, context.Canceled)
}

func TestCompileErrors(t *testing.T) {
	env := newTestEnv(t)
	_, err := env.Compile("   ")
	var ce *CompileError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, CodeEmpty, ce.Code)
	assert.EqualError(t, err, "cel: empty CEL expression")

	_, err = env.Compile("${ state. }")
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, CodeInvalid, ce.Code)
	assert.Equal(t, "state.", ce.Expr)
	assert.Equal(t, 9, ce.Offset)
	assert.Contains(t, err.Error(), "cel: invalid CEL expression 'state.'. Check the CEL syntax. Parser details: ERROR:")
}

func TestCompileCaches(t *testing.T) {
	env := newTestEnv(t)
	a, err := env.Compile("state.x + 1")
	require.NoError(t, err)
	b, err := env.Compile("  ${state.x + 1}")
	require.NoError(t, err)
	assert.Same(t, a, b)
	assert.Equal(t, "state.x + 1", a.Expr())
}

func TestEvalConcurrent(t *testing.T) {
	env := newTestEnv(t)
	tmpl, err := env.CompileTemplate("n=${state.n} l=${state.l.map(i, i + state.n)}")
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vars := &Vars{State: map[string]any{"n": int64(g), "l": []any{int64(1)}}}
			for range 200 {
				got, err := tmpl.Render(context.Background(), vars)
				if err != nil {
					errs <- err
					return
				}
				if want := "n=" + itoa(g) + " l=[" + itoa(g+1) + "]"; got != want {
					errs <- errors.New("got " + got.(string) + ", want " + want)
					return
				}
				// Compiling the same text concurrently hits the cache.
				if _, err := env.Compile("state.n * 2"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
