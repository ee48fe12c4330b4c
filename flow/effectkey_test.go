package flow_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

const parallelToolsFlow = `
schema: crewai.flow/v1
name: Parallel
methods:
  research:
    start: true
    do:
      call: agent
      with: {role: Researcher, goal: Find, backstory: Careful., tools: [lookup], input: "Look up A, B and C."}
  summary:
    listen: research
    do: {call: expression, expr: "outputs.research.raw"}
`

// keyRecorder records, by effect key, what every effect of a run asked for.
type keyRecorder struct {
	mu   sync.Mutex
	seen map[string]string
	dups []string
}

func (k *keyRecorder) intercept(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
	out, err := next(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	key := e.Key()
	if _, ok := k.seen[key]; ok {
		k.dups = append(k.dups, key)
	}
	k.seen[key] = string(e.Kind) + " " + e.Name
	return out, err
}

// TestEffectKeysAreStableUnderParallelToolCalls runs an agent whose
// model asks for three, then two, tool calls at once, with tools that take
// random time, 100 times: the keys and the requests must be the same
// every time (run under -race in CI).
func TestEffectKeysAreStableUnderParallelToolCalls(t *testing.T) {
	lookup := action.MustNewTool("lookup", "Look up an item.", func(ctx context.Context, in struct {
		ID string `json:"id"`
	}) (string, error) {
		select { // random delays reorder the goroutines of a round
		case <-time.After(time.Duration(rand.IntN(400)) * time.Microsecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return "item " + in.ID + " found", nil
	})
	var first map[string]string
	var firstReqs []string
	for i := range 100 {
		model := fake.New(
			fake.Match("item E found", fake.Text("All found.")),
			fake.Match("item C found", fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "D"}), fake.Call("lookup", map[string]any{"id": "E"}))),
			fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "A"}), fake.Call("lookup", map[string]any{"id": "B"}), fake.Call("lookup", map[string]any{"id": "C"})),
		)
		rec := &keyRecorder{seen: map[string]string{}}
		eng := flow.NewEngine(flow.WithInterceptor(rec.intercept), flow.WithLLM(model), flow.WithTools(lookup))
		res, err := eng.Run(context.Background(), mustParse(t, parallelToolsFlow), map[string]any{"id": "r1"})
		require.NoError(t, err)
		require.Equal(t, "All found.", res.Output)
		require.Empty(t, rec.dups, "run %d: keys used twice", i)
		reqs := requestTexts(t, model.Requests())
		if first == nil {
			first, firstReqs = rec.seen, reqs
			continue
		}
		require.Equal(t, first, rec.seen, "run %d: effect keys", i)
		require.Equal(t, firstReqs, reqs, "run %d: model requests", i)
	}
	keys := make([]string, 0, len(first))
	for k := range first {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	assert.Equal(t, []string{
		"r1/research#1",
		"r1/research#1/llm#1", "r1/research#1/llm#2", "r1/research#1/llm#3",
		"r1/research#1/tool#1.1", "r1/research#1/tool#1.2", "r1/research#1/tool#1.3",
		"r1/research#1/tool#2.1", "r1/research#1/tool#2.2",
		"r1/summary#1",
	}, keys)
}

func requestTexts(t *testing.T, reqs []*llm.Request) []string {
	t.Helper()
	out := make([]string, len(reqs))
	for i, r := range reqs {
		b, err := json.Marshal(r.Messages)
		require.NoError(t, err)
		out[i] = string(b)
	}
	return out
}

// TestEffectKeysOfACrewNameEachAgentRun checks that the agent runs of one
// crew invocation get keys of their own: the first task's calls sit
// directly under the invocation, the second's under agent#2.
func TestEffectKeysOfACrewNameEachAgentRun(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: CrewKeys
methods:
  work:
    start: true
    do:
      call: crew
      with:
        agents:
          researcher: {role: Researcher, goal: Find, backstory: Knows., tools: [lookup]}
          writer: {role: Writer, goal: Write, backstory: Writes.}
        tasks:
          - {name: find, description: Find things, expected_output: Findings, agent: researcher}
          - {name: write, description: Write it up, expected_output: Text, agent: writer}
`)
	lookup := action.MustNewTool("lookup", "Look up an item.", func(_ context.Context, in struct {
		ID string `json:"id"`
	}) (string, error) {
		return "item " + in.ID, nil
	})
	model := fake.New(
		fake.Match("Write it up", fake.Text("Written.")),
		fake.Match("item B", fake.Text("Found.")),
		fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "A"}), fake.Call("lookup", map[string]any{"id": "B"})),
	)
	rec := &keyRecorder{seen: map[string]string{}}
	_, err := flow.NewEngine(flow.WithInterceptor(rec.intercept), flow.WithLLM(model), flow.WithTools(lookup)).
		Run(context.Background(), def, map[string]any{"id": "r2"})
	require.NoError(t, err)
	assert.Empty(t, rec.dups)
	assert.Equal(t, map[string]string{
		"r2/work#1":               "method ",
		"r2/work#1/llm#1":         "llm ",
		"r2/work#1/tool#1.1":      "tool lookup",
		"r2/work#1/tool#1.2":      "tool lookup",
		"r2/work#1/llm#2":         "llm ",
		"r2/work#1/agent#2/llm#1": "llm ",
	}, rec.seen)
}

func TestEffectKey(t *testing.T) {
	base := flow.Effect{RunID: "r", Method: "m", Invocation: 2}
	tests := []struct {
		name string
		edit func(*flow.Effect)
		want string
	}{
		{"method", func(e *flow.Effect) { e.Kind = flow.EffectMethod }, "r/m#2"},
		{"model call", func(e *flow.Effect) { e.Kind, e.Turn, e.Index = flow.EffectLLM, 3, 3 }, "r/m#2/llm#3"},
		{"tool call", func(e *flow.Effect) { e.Kind, e.Turn, e.Index = flow.EffectTool, 3, 2 }, "r/m#2/tool#3.2"},
		{"delegated", func(e *flow.Effect) { e.Kind, e.Scope, e.Turn, e.Index = flow.EffectLLM, "tool#1.1/agent#2", 1, 1 }, "r/m#2/tool#1.1/agent#2/llm#1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := base
			tt.edit(&e)
			assert.Equal(t, tt.want, e.Key())
		})
	}
}

// TestSequentialToolRoundsRunInCallOrder checks that WithToolRound
// (SequentialTools) starts a round's tool calls one at a time in call
// order, with the same keys and requests as the concurrent default.
func TestSequentialToolRoundsRunInCallOrder(t *testing.T) {
	var mu sync.Mutex
	var started []string
	inFlight, most := 0, 0
	lookup := action.MustNewTool("lookup", "Look up an item.", func(_ context.Context, in struct {
		ID string `json:"id"`
	}) (string, error) {
		mu.Lock()
		started = append(started, in.ID)
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		mu.Lock()
		inFlight--
		mu.Unlock()
		return "item " + in.ID + " found", nil
	})
	run := func(opts ...flow.Option) (map[string]string, []string) {
		model := fake.New(
			fake.Match("item E found", fake.Text("All found.")),
			fake.Match("item C found", fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "D"}), fake.Call("lookup", map[string]any{"id": "E"}))),
			fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "A"}), fake.Call("lookup", map[string]any{"id": "B"}), fake.Call("lookup", map[string]any{"id": "C"})),
		)
		rec := &keyRecorder{seen: map[string]string{}}
		opts = append(opts, flow.WithInterceptor(rec.intercept), flow.WithLLM(model), flow.WithTools(lookup))
		res, err := flow.NewEngine(opts...).Run(context.Background(), mustParse(t, parallelToolsFlow), map[string]any{"id": "r1"})
		require.NoError(t, err)
		require.Equal(t, "All found.", res.Output)
		return rec.seen, requestTexts(t, model.Requests())
	}
	keys, reqs := run()
	started, most = nil, 0
	seqKeys, seqReqs := run(flow.WithToolRound(action.SequentialTools))
	assert.Equal(t, []string{"A", "B", "C", "D", "E"}, started)
	assert.Equal(t, 1, most)
	assert.Equal(t, keys, seqKeys)
	assert.Equal(t, reqs, seqReqs)
}
