package cel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTestEnv(t testing.TB) *Env {
	t.Helper()
	env, err := NewEnv()
	require.NoError(t, err)
	return env
}

func TestTemplateRender(t *testing.T) {
	state := map[string]any{
		"n": int64(3), "ok": true, "d": map[string]any{"a": int64(1)}, "note": nil,
		"topic": "ai", "limit": int64(2), "domains": []any{"crewai.com", "example.com"},
		"f": 2.0, "list": []any{int64(1), "x", nil}, "uni": "héllo",
	}
	vars := &Vars{State: state, Outputs: map[string]any{"begin": "hello"}}
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"no expression is unchanged", "plain $text", "plain $text"},
		{"non-string values as JSON", "n=${state.n}; ok=${state.ok}; d=${state.d}", `n=3; ok=true; d={"a": 1}`},
		{"null as empty", "note:${state.note};", "note:;"},
		{"adjacent expressions", "${'a'}${'b'}", "ab"},
		{"sole expression keeps int", "${state.limit}", int64(2)},
		{"sole expression keeps list", "${state.domains}", []any{"crewai.com", "example.com"}},
		{"surrounding white space dropped", "  ${state.n}\n", int64(3)},
		{"sole expression keeps map", "${state.d}", map[string]any{"a": int64(1)}},
		{"sole expression keeps null", "${state.note}", nil},
		{"sole expression keeps bool", "${state.ok}", true},
		{"float in text", "f=${state.f}", "f=2.0"},
		{"list in text", "l=${state.list}", `l=[1, "x", null]`},
		{"string in text is raw", "say ${state.uni}", "say héllo"},
		{"string inside list keeps unicode", "${'x'} ${[state.uni]}", `x ["héllo"]`},
		{"bytes in text are base64", "b=${b'hi'}", "b=aGk="},
		{"timestamp in text", "t=${timestamp('2024-05-06T07:08:09Z')}", "t=2024-05-06T07:08:09Z"},
		{"duration in text", "d=${duration('1m')}", "d=60s"},
		{"escape idiom", "$5 or $more, escaped ${'${'}x", "$5 or $more, escaped ${x"},
		{"brace inside string literal", "wrapped ${'a}b'} value", "wrapped a}b value"},
		{"map literal field", "result: ${ {'k': 'v'}.k } end", "result: v end"},
		{"ternary", "${state.ok ? state.topic + ' agents' : 'missing'}", "ai agents"},
		{"outputs", "${outputs.begin + ' agents'}", "hello agents"},
		{"two expressions and blank literal are text", "${state.n} ${state.n}", "3 3"},
		{"uint in text", "u=${2u}", "u=2"},
		{"double infinity in text", "x=${1.0/0.0}", "x=Infinity"},
	}
	env := newTestEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := env.CompileTemplate(tt.in)
			require.NoError(t, err)
			got, err := tmpl.Render(context.Background(), vars)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTemplateKinds(t *testing.T) {
	env := newTestEnv(t)
	lit, err := env.CompileTemplate("no expression")
	require.NoError(t, err)
	assert.True(t, lit.IsLiteral())
	assert.Empty(t, lit.Programs())
	assert.Equal(t, "no expression", lit.Text())

	typed, err := env.CompileTemplate(" ${state.a} ")
	require.NoError(t, err)
	require.Len(t, typed.Programs(), 1)
	assert.Equal(t, "state.a", typed.Programs()[0].Expr())

	text, err := env.CompileTemplate("${state.a}-${outputs.b}")
	require.NoError(t, err)
	require.Len(t, text.Programs(), 2)
	assert.Equal(t, "outputs.b", text.Programs()[1].Expr())
}

func TestTemplateCompileErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		code   string
		msg    string
		offset int
	}{
		{"unterminated", "cost ${state.a", CodeTemplateUnterminated, "cel: unterminated ${...} expression in 'cost ${state.a'", 5},
		{"empty", "x ${} y", CodeTemplateEmpty, "cel: empty CEL expression in 'x ${} y'", 2},
		{"bad syntax", "a ${state.} b", CodeInvalid, "", 10},
	}
	env := newTestEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := env.CompileTemplate(tt.in)
			var ce *CompileError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.code, ce.Code)
			assert.Equal(t, tt.offset, ce.Offset)
			if tt.msg != "" {
				assert.EqualError(t, err, tt.msg)
			}
		})
	}
}

func TestTemplateRenderError(t *testing.T) {
	env := newTestEnv(t)
	tmpl, err := env.CompileTemplate("value: ${state.missing}")
	require.NoError(t, err)
	_, err = tmpl.Render(context.Background(), &Vars{State: map[string]any{}})
	var ee *EvalError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, "state.missing", ee.Expr)
	assert.EqualError(t, err, "failed to evaluate CEL expression 'state.missing': no such key: missing")
}

func TestTemplateCached(t *testing.T) {
	env := newTestEnv(t)
	a, err := env.CompileTemplate("x ${state.a}")
	require.NoError(t, err)
	b, err := env.CompileTemplate("x ${state.a}")
	require.NoError(t, err)
	assert.Same(t, a, b)
}
