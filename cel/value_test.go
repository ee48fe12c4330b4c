package cel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValueRender(t *testing.T) {
	vars := &Vars{State: map[string]any{"limit": int64(2), "primary": "crewai.com", "suffix": "example.com", "topic": "AI"}}
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"scalars pass through", int64(5), int64(5)},
		{"plain string", "text", "text"},
		{"typed expression", "${state.limit}", int64(2)},
		{"map", map[string]any{"count": "${state.limit}", "fixed": true, "name": "n"},
			map[string]any{"count": int64(2), "fixed": true, "name": "n"}},
		{"list items", map[string]any{"domains": []any{"${state.primary}", "docs.${state.suffix}", int64(1)}},
			map[string]any{"domains": []any{"crewai.com", "docs.example.com", int64(1)}}},
		{"nested map", map[string]any{"inputs": map[string]any{"topic": "News about ${state.topic}"}},
			map[string]any{"inputs": map[string]any{"topic": "News about AI"}}},
		{"string slice", []string{"${state.limit}", "x"}, []any{int64(2), "x"}},
		{"string map", map[string]string{"t": "${state.topic}"}, map[string]any{"t": "AI"}},
		{"keys are not rendered", map[string]any{"${state.topic}": "v"}, map[string]any{"${state.topic}": "v"}},
		{"escaped dollar stays a string", "${'${'}", "${"},
	}
	env := newTestEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := env.CompileValue(tt.in)
			require.NoError(t, err)
			got, err := v.Render(context.Background(), vars)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValueStaticRendersWithoutAllocating(t *testing.T) {
	env := newTestEnv(t)
	in := map[string]any{"search_query": "ai agents", "list": []any{"a", int64(1)}, "n": int64(2)}
	v, err := env.CompileValue(in)
	require.NoError(t, err)
	assert.True(t, v.IsStatic())
	ctx := context.Background()
	vars := &Vars{}
	var got any
	allocs := testing.AllocsPerRun(100, func() {
		got, _ = v.Render(ctx, vars)
	})
	assert.Zero(t, allocs)
	assert.Equal(t, in, got)
}

func TestValueSharesStaticParts(t *testing.T) {
	env := newTestEnv(t)
	static := []any{"a", "b"}
	v, err := env.CompileValue(map[string]any{"q": "${state.x}", "static": static})
	require.NoError(t, err)
	assert.False(t, v.IsStatic())
	got, err := v.Render(context.Background(), &Vars{State: map[string]any{"x": "y"}})
	require.NoError(t, err)
	m := got.(map[string]any)
	assert.Equal(t, "y", m["q"])
	assert.Same(t, &static[0], &m["static"].([]any)[0])
}

func TestValueCompileError(t *testing.T) {
	env := newTestEnv(t)
	_, err := env.CompileValue(map[string]any{"a": []any{"ok", "bad ${state.x"}})
	var ce *CompileError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, CodeTemplateUnterminated, ce.Code)
}

func TestValueRenderError(t *testing.T) {
	env := newTestEnv(t)
	v, err := env.CompileValue(map[string]any{"a": []any{"${state.missing}"}})
	require.NoError(t, err)
	_, err = v.Render(context.Background(), &Vars{State: map[string]any{}})
	var ee *EvalError
	require.ErrorAs(t, err, &ee)
}
