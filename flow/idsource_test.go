package flow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

const idFlow = `
schema: crewai.flow/v1
name: Ids
methods:
  begin:
    start: true
    do: {call: expression, expr: "1"}
`

// TestSeededIDsAreDeterministic checks that runs not given an id take it
// from the engine's id source: one seed makes one sequence of ids, another
// seed another, and a given id still wins.
func TestSeededIDsAreDeterministic(t *testing.T) {
	runIDs := func(src flow.IDSource, n int) []string {
		e := flow.NewEngine(flow.WithIDSource(src))
		def := mustParse(t, idFlow)
		var out []string
		for range n {
			res, err := e.Run(context.Background(), def, nil)
			require.NoError(t, err)
			require.Equal(t, res.RunID, res.State["id"])
			out = append(out, res.RunID)
		}
		return out
	}
	a := runIDs(flow.SeededIDs(7), 3)
	assert.Equal(t, a, runIDs(flow.SeededIDs(7), 3))
	assert.NotEqual(t, a, runIDs(flow.SeededIDs(8), 3))
	assert.Len(t, map[string]bool{a[0]: true, a[1]: true, a[2]: true}, 3)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, a[0])

	res, err := flow.NewEngine(flow.WithIDSource(flow.SeededIDs(7))).Run(context.Background(), mustParse(t, idFlow), map[string]any{"id": "given"})
	require.NoError(t, err)
	assert.Equal(t, "given", res.RunID)
}
