package cel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func benchVars() *Vars {
	return &Vars{
		State:   map[string]any{"x": int64(41_000), "topic": "AI agents", "n": int64(3), "d": map[string]any{"a": int64(1)}},
		Outputs: map[string]any{"n0": int64(99_000), "begin": "hello"},
	}
}

func benchEval(b *testing.B, expr string) {
	env, err := NewEnv()
	require.NoError(b, err)
	p, err := env.Compile(expr)
	require.NoError(b, err)
	ctx := context.Background()
	vars := benchVars()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Eval(ctx, vars); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalOutputsPlusOne(b *testing.B) { benchEval(b, "outputs.n0 + 1") }

func BenchmarkEvalStatePlusOne(b *testing.B) { benchEval(b, "state.x + 1") }

func BenchmarkEvalExists(b *testing.B) {
	benchEval(b, "[1, 2, 3].exists(i, i == state.n)")
}

func benchRender(b *testing.B, text string) {
	env, err := NewEnv()
	require.NoError(b, err)
	t, err := env.CompileTemplate(text)
	require.NoError(b, err)
	ctx := context.Background()
	vars := benchVars()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := t.Render(ctx, vars); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderLiteral(b *testing.B) { benchRender(b, "plain text without expressions") }

func BenchmarkRenderMixed(b *testing.B) {
	benchRender(b, "News about ${state.topic}: n=${state.n}; d=${state.d}; from ${outputs.begin}")
}

func BenchmarkRenderTyped(b *testing.B) { benchRender(b, "${state.n}") }

func BenchmarkValueStatic(b *testing.B) {
	env, err := NewEnv()
	require.NoError(b, err)
	v, err := env.CompileValue(map[string]any{"search_query": "ai agents", "prefix": "found", "n": int64(2)})
	require.NoError(b, err)
	ctx := context.Background()
	vars := benchVars()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Render(ctx, vars); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileCached(b *testing.B) {
	env, err := NewEnv()
	require.NoError(b, err)
	_, err = env.Compile("state.x + 1")
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := env.Compile("state.x + 1"); err != nil {
			b.Fatal(err)
		}
	}
}
