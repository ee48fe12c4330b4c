package flow

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefinitionHash(t *testing.T) {
	const base = `
schema: crewai.flow/v1
name: Hashed
methods:
  a: {start: true, do: {call: expression, expr: "state.n + 1"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a * 2"}}
`
	parse := func(t *testing.T, src string) *Definition {
		t.Helper()
		def, err := Parse([]byte(src), "hashed.yaml")
		require.NoError(t, err)
		return def
	}
	want := parse(t, base).Hash()
	require.Len(t, want, 32)
	tests := []struct {
		name string
		src  string
		same bool
	}{
		{"reformatted, keys reordered, comments", `
# the same flow, written another way
name: Hashed
schema: crewai.flow/v1
methods:
  a:
    do: {expr: "state.n + 1", call: expression}
    start: true
  b:
    listen: a   # after a
    do:
      call: expression
      expr: "outputs.a * 2"
`, true},
		{"a changed method", `
schema: crewai.flow/v1
name: Hashed
methods:
  a: {start: true, do: {call: expression, expr: "state.n + 2"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a * 2"}}
`, false},
		{"another trigger", `
schema: crewai.flow/v1
name: Hashed
methods:
  a: {start: true, do: {call: expression, expr: "state.n + 1"}}
  b: {start: true, do: {call: expression, expr: "outputs.a * 2"}}
`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parse(t, tt.src).Hash()
			if tt.same {
				assert.Equal(t, want, got)
			} else {
				assert.NotEqual(t, want, got)
			}
		})
	}
}
