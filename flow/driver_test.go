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

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
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
					if !c.verify(t, got, err) {
						return
					}
					assert.Equal(t, want.State, got.State)
					requireSameRun(t, fixtureEngine, []flow.Option{flow.WithScripts(c.scripts)}, def, withID(c.inputs), d, got)

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

// completeByMethod completes the ready job of method m by running it.
func completeByMethod(t *testing.T, d *flow.Driver, m string) *flow.Job {
	t.Helper()
	for _, j := range d.Ready() {
		if j.Effect.Method == m && j.Effect.Kind == flow.EffectMethod {
			out, err := j.Run(context.Background())
			require.NoError(t, err)
			require.NoError(t, d.Complete(j, out))
			return j
		}
	}
	t.Fatalf("no job of %s is ready: %v", m, readyKeys(d))
	return nil
}

func readyKeys(d *flow.Driver) []string {
	var out []string
	for _, j := range d.Ready() {
		out = append(out, j.Effect.Key())
	}
	return out
}

func TestDriverOrRaceTakesTheFirstCompletion(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Race
methods:
  a: {start: true, do: {call: expression, expr: "'a'"}}
  fast: {listen: a, do: {call: expression, expr: "'fast'"}}
  slow: {listen: a, do: {call: expression, expr: "'slow'"}}
  first: {listen: {or: [fast, slow]}, do: {call: expression, expr: "'won'"}}
`)
	for _, winner := range []string{"fast", "slow"} {
		t.Run(winner, func(t *testing.T) {
			d, err := flow.NewEngine().NewDriver(def, map[string]any{"id": "r"})
			require.NoError(t, err)
			completeByMethod(t, d, "a")
			assert.Equal(t, []string{"r/fast#1", "r/slow#1"}, readyKeys(d))
			completeByMethod(t, d, winner)
			completeByMethod(t, d, "first")
			require.True(t, d.Done(), "the loser was cancelled: %v", readyKeys(d))
			var cancelled []string
			for _, j := range d.Cancelled() {
				cancelled = append(cancelled, j.Effect.Method)
			}
			loser := map[string]string{"fast": "slow", "slow": "fast"}[winner]
			assert.Equal(t, []string{loser}, cancelled)
			res, err := d.Result()
			require.NoError(t, err)
			assert.Equal(t, []string{"a", winner, "first"}, res.Trace)
		})
	}
}

func TestDriverFailureCancelsSiblings(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Fail
methods:
  a: {start: true, do: {call: expression, expr: "'a'"}}
  b: {listen: a, do: {call: expression, expr: "'b'"}}
  c: {listen: a, do: {call: expression, expr: "'c'"}}
`)
	d, err := flow.NewEngine().NewDriver(def, map[string]any{"id": "r"})
	require.NoError(t, err)
	completeByMethod(t, d, "a")
	require.NoError(t, d.Fail(d.Ready()[0], fmt.Errorf("the model is down")))
	require.True(t, d.Done())
	require.Len(t, d.Cancelled(), 1)
	_, err = d.Result()
	var me *flow.MethodError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "b", me.Method)
	assert.Contains(t, err.Error(), "the model is down")
}

func TestDriverHumanFeedbackIsAJob(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Review
methods:
  draft:
    start: true
    human_feedback: {message: "Publish?", emit: [approved, rejected], default_outcome: rejected}
    do: {call: expression, expr: "'draft'"}
  publish: {listen: approved, do: {call: expression, expr: "'published'"}}
  discard: {listen: rejected, do: {call: expression, expr: "'discarded'"}}
`)
	d, err := flow.NewEngine().NewDriver(def, map[string]any{"id": "r"})
	require.NoError(t, err)
	completeByMethod(t, d, "draft")
	ready := d.Ready()
	require.Len(t, ready, 1)
	fb := ready[0]
	assert.Equal(t, flow.EffectFeedback, fb.Effect.Kind)
	assert.Equal(t, "r/draft#1/feedback#1", fb.Effect.Key())
	require.NotNil(t, fb.Feedback)
	assert.Equal(t, "Publish?", fb.Feedback.Message)
	assert.Equal(t, "draft", fb.Feedback.Output)

	// The journal so far rebuilds a driver waiting for the same answer.
	restored, err := flow.NewEngine().RestoreDriver(def, map[string]any{"id": "r"}, d.Journal())
	require.NoError(t, err)
	assert.Equal(t, readyKeys(d), readyKeys(restored))

	require.NoError(t, restored.Complete(restored.Ready()[0], "approved"))
	completeByMethod(t, restored, "publish")
	res, err := restored.Result()
	require.NoError(t, err)
	assert.Equal(t, "published", res.Output)
	assert.Equal(t, []string{"draft", "publish"}, res.Trace)
}

// TestDriverMatchesTheSchedulerOnEngineFlows runs flows of the engine
// tests (routers in a loop, nested and/or, several starts, conditional
// starts, or-races) through both schedulers, the driver with shuffled
// completion orders.
func TestDriverMatchesTheSchedulerOnEngineFlows(t *testing.T) {
	flows := map[string]string{
		"router loop": `
schema: crewai.flow/v1
name: Loop
state: {type: dict, default: {n: 0}}
methods:
  step: {start: true, do: {call: expression, expr: "state.n"}}
  count: {listen: {or: [step, again]}, do: {call: expression, expr: "'count' in outputs ? outputs.count + 1 : 1"}}
  decide: {listen: count, router: true, emit: [again, done], do: {call: expression, expr: "outputs.count < 3 ? 'again' : 'done'"}}
  finish: {listen: done, do: {call: expression, expr: "'finished'"}}
`,
		"nested and/or with two starts": `
schema: crewai.flow/v1
name: Nested
methods:
  s1: {start: true, do: {call: expression, expr: "'s1'"}}
  s2: {start: true, do: {call: expression, expr: "'s2'"}}
  x: {listen: s1, do: {call: expression, expr: "'x'"}}
  y: {listen: s2, do: {call: expression, expr: "'y'"}}
  z: {listen: s2, do: {call: expression, expr: "'z'"}}
  join: {listen: {and: [x, {or: [y, z]}]}, do: {call: expression, expr: "'joined'"}}
  all: {listen: {and: [s1, s2, x, y, z]}, do: {call: expression, expr: "'all'"}}
`,
		"routers chain into conditional start": `
schema: crewai.flow/v1
name: Routes
methods:
  begin: {start: true, do: {call: expression, expr: "'go'"}}
  r1: {listen: begin, router: true, emit: [left, right], do: {call: expression, expr: "'left'"}}
  r2: {listen: left, router: true, emit: [up, down], do: {call: expression, expr: "'up'"}}
  l: {listen: left, do: {call: expression, expr: "'l'"}}
  u: {listen: up, do: {call: expression, expr: "'u'"}}
  late: {start: up, do: {call: expression, expr: "'late'"}}
`,
		"or race under a fan-out": `
schema: crewai.flow/v1
name: Races
methods:
  a: {start: true, do: {call: expression, expr: "'a'"}}
  b: {listen: a, do: {call: expression, expr: "'b'"}}
  c: {listen: a, do: {call: expression, expr: "'c'"}}
  d: {listen: a, do: {call: expression, expr: "'d'"}}
  first: {listen: {or: [b, c]}, do: {call: expression, expr: "'first'"}}
  last: {listen: {and: [d, first]}, do: {call: expression, expr: "outputs.first + outputs.d"}}
`,
	}
	for name, src := range flows {
		t.Run(name, func(t *testing.T) {
			def := mustParse(t, src)
			want, err := flow.NewEngine().Run(context.Background(), def, map[string]any{"id": "r"})
			require.NoError(t, err)
			for seed := range uint64(20) {
				d, err := flow.NewEngine().NewDriver(def, map[string]any{"id": "r"})
				require.NoError(t, err)
				got, err := drive(t, d, seed)
				require.NoError(t, err, "seed %d", seed)
				assert.Equal(t, want.State, got.State, "seed %d", seed)
				requireSameRun(t, flow.NewEngine, nil, def, map[string]any{"id": "r"}, d, got)
			}
		})
	}
}

// TestDriverJobsKeepTheirEffectScope checks that an agent run as a driver
// job shows its model and tool calls to the engine's interceptors under
// the job's key.
func TestDriverJobsKeepTheirEffectScope(t *testing.T) {
	lookup := action.MustNewTool("lookup", "Look up an item.", func(_ context.Context, in struct {
		ID string `json:"id"`
	}) (string, error) {
		return "item " + in.ID + " found", nil
	})
	model := fake.New(
		fake.Match("item C found", fake.Text("All found.")),
		fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "A"}), fake.Call("lookup", map[string]any{"id": "B"}), fake.Call("lookup", map[string]any{"id": "C"})),
	)
	rec := &keyRecorder{seen: map[string]string{}}
	eng := flow.NewEngine(flow.WithInterceptor(rec.intercept), flow.WithLLM(model), flow.WithTools(lookup))
	d, err := eng.NewDriver(mustParse(t, parallelToolsFlow), map[string]any{"id": "r1"})
	require.NoError(t, err)
	res, err := drive(t, d, 0)
	require.NoError(t, err)
	assert.Equal(t, "All found.", res.Output)
	assert.Equal(t, map[string]string{
		"r1/research#1": "method ", "r1/summary#1": "method ",
		"r1/research#1/llm#1": "llm ", "r1/research#1/llm#2": "llm ",
		"r1/research#1/tool#1.1": "tool lookup", "r1/research#1/tool#1.2": "tool lookup", "r1/research#1/tool#1.3": "tool lookup",
	}, rec.seen)
}
