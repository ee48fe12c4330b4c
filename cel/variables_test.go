package cel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithVariables(t *testing.T) {
	env, err := NewEnv(WithVariables("tool", "result"))
	require.NoError(t, err)
	assert.Empty(t, env.CheckExpr("events.e", `tool == "q" && result.ok`, []string{"tool", "result"}))
	p, err := env.Compile(`tool == "q" && result.ok`)
	require.NoError(t, err)
	got, err := p.Eval(context.Background(), &Vars{Extra: map[string]any{"tool": "q", "result": map[string]any{"ok": true}}})
	require.NoError(t, err)
	assert.Equal(t, true, got)
	_, err = p.Eval(context.Background(), &Vars{})
	assert.Error(t, err, "an unbound extra variable fails the evaluation")
}
