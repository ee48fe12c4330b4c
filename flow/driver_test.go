package flow_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// drive runs d to its end, completing one ready job at a time, picked by
// a generator seeded with seed (seed 0 always takes the first), by
// running its action in this process.
func drive(t *testing.T, d *flow.Driver, seed uint64) (*flow.Result, error) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for steps := 0; !d.Done(); steps++ {
		ready := d.Ready()
		require.NotEmpty(t, ready, "the run waits for nothing but has not finished")
		require.Less(t, steps, 10000, "the run does not end")
		j := ready[0]
		if seed != 0 {
			j = ready[rng.IntN(len(ready))]
		}
		out, err := j.Run(context.Background())
		if err != nil {
			require.NoError(t, d.Fail(j, err))
		} else {
			require.NoError(t, d.Complete(j, out))
		}
	}
	return d.Result()
}

func withID(inputs map[string]any) map[string]any {
	out := maps.Clone(inputs)
	if out == nil {
		out = map[string]any{}
	}
	out["id"] = "run-1"
	return out
}

// TestDriverConformance runs every runtime fixture through the fast
// scheduler and through the driver, with completion orders shuffled by
// seed: outputs, state and errors must agree, the trace must be the
// fast run's (when it is deterministic) or a reordering of it, and a
// driver restored from the journal must give the same run.
func TestDriverConformance(t *testing.T) {
	dir := filepath.Join(fixtureDir(t), "valid")
	for _, c := range manifestCases() {
		t.Run(strings.TrimSuffix(c.file, filepath.Ext(c.file)), func(t *testing.T) {
			if c.scripts && !hasPython() {
				t.Skip("python3 is not installed; script actions cannot run")
			}
			def, err := flow.Load(filepath.Join(dir, c.file))
			require.NoError(t, err)
			eng := fixtureEngine(flow.WithScripts(c.scripts))
			want, wantErr := eng.Run(context.Background(), def, withID(c.inputs))
			for seed := range uint64(6) {
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
					d, err := fixtureEngine(flow.WithScripts(c.scripts)).NewDriver(def, withID(c.inputs))
					if wantErr != nil && err != nil {
						assert.Contains(t, err.Error(), c.wantErr)
						return
					}
					require.NoError(t, err)
					got, err := drive(t, d, seed)
					if wantErr != nil {
						require.Error(t, err)
						assert.Contains(t, err.Error(), c.wantErr)
						return
					}
					require.NoError(t, err)
					assert.Equal(t, want.Output, got.Output)
					assert.Equal(t, want.State, got.State)
					assert.Equal(t, flow.Data(want.Outputs), flow.Data(got.Outputs))
					if c.trace != nil {
						assert.Equal(t, c.trace, got.Trace)
					}
					assert.ElementsMatch(t, want.Trace, got.Trace)

					restored, err := fixtureEngine(flow.WithScripts(c.scripts)).RestoreDriver(def, withID(c.inputs), d.Journal())
					require.NoError(t, err)
					require.True(t, restored.Done())
					again, err := restored.Result()
					require.NoError(t, err)
					assert.Equal(t, got.Trace, again.Trace)
					assert.Equal(t, got.State, again.State)
				})
			}
		})
	}
}

// TestDriverSameOrderSameRun checks that two drivers given the same
// completion order hand out the same jobs and end the same way.
func TestDriverSameOrderSameRun(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Fan
methods:
  a: {start: true, do: {call: expression, expr: "'a'"}}
  b: {listen: a, do: {call: expression, expr: "'b'"}}
  c: {listen: a, do: {call: expression, expr: "'c'"}}
  d: {listen: a, do: {call: expression, expr: "'d'"}}
  join: {listen: {and: [b, c, d]}, do: {call: expression, expr: "outputs.b + outputs.c + outputs.d"}}
`)
	keys := func(seed uint64) ([]string, []string) {
		d, err := flow.NewEngine().NewDriver(def, map[string]any{"id": "r"})
		require.NoError(t, err)
		var seen []string
		rng := rand.New(rand.NewPCG(seed, 1))
		for !d.Done() {
			ready := d.Ready()
			for _, j := range ready {
				seen = append(seen, j.Effect.Key())
			}
			j := ready[rng.IntN(len(ready))]
			out, err := j.Run(context.Background())
			require.NoError(t, err)
			require.NoError(t, d.Complete(j, out))
		}
		res, err := d.Result()
		require.NoError(t, err)
		assert.Equal(t, "bcd", res.Output)
		return seen, res.Trace
	}
	for seed := range uint64(5) {
		k1, t1 := keys(seed)
		k2, t2 := keys(seed)
		assert.Equal(t, k1, k2)
		assert.Equal(t, t1, t2)
		assert.Equal(t, "join", t1[len(t1)-1])
	}
	first, _ := keys(0)
	assert.Equal(t, []string{"r/a#1", "r/b#1", "r/c#1", "r/d#1"}, slices.Compact(slices.Sorted(slices.Values(first)))[:4])
}
