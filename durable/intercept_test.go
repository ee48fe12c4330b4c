package durable_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/durable"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

const agentsFlow = `
schema: crewai.flow/v1
name: Agents
methods:
  research:
    start: true
    do:
      call: agent
      with: {role: Researcher, goal: Find, backstory: Careful., tools: [lookup], input: "Look up A and B."}
  judge:
    listen: research
    router: true
    emit: [good, bad]
    do:
      call: agent
      with: {role: Judge, goal: Judge, backstory: Strict., input: "Say good or bad."}
  score:
    listen: good
    do:
      call: agent
      with:
        role: Scorer
        goal: Score
        backstory: Counts.
        input: "Score it."
        response_schema: {type: object, properties: {score: {type: integer}, ratio: {type: number}}, required: [score, ratio]}
  report:
    listen: score
    do: {call: expression, expr: "outputs.score.pydantic.score + 1"}
`

type memRecorder struct {
	mu   sync.Mutex
	keys []string
}

func (m *memRecorder) Record(_ context.Context, key string, _ flow.EffectKind, _ []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys = append(m.keys, key)
	return nil
}

func agentsEngine(opts ...flow.Option) *flow.Engine {
	lookup := action.MustNewTool("lookup", "Look up an item.", func(_ context.Context, in struct {
		ID string `json:"id"`
	}) (map[string]any, error) {
		return map[string]any{"id": in.ID, "found": true, "n": 2}, nil
	})
	model := fake.New(
		fake.Match("Score it", fake.JSON(map[string]any{"score": 3, "ratio": 1.0})),
		fake.Match("Say good or bad", fake.Text(" Good ")),
		fake.Match(`"id": "B"|"id":"B"`, fake.Text("Both found.")),
		fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "A"}), fake.Call("lookup", map[string]any{"id": "B"})),
	)
	return flow.NewEngine(append([]flow.Option{flow.WithLLM(model), flow.WithTools(lookup)}, opts...)...)
}

// TestInterceptorReturnsDecodedCopies runs agents (parallel tools, a
// routing agent, structured output with an integer) with and without the
// codec: outputs, state and trace must be the same, and every effect is
// recorded once.
func TestInterceptorReturnsDecodedCopies(t *testing.T) {
	def, err := flow.Parse([]byte(agentsFlow), "agents.yaml")
	require.NoError(t, err)
	want, err := agentsEngine().Run(context.Background(), def, map[string]any{"id": "r1"})
	require.NoError(t, err)
	rec := &memRecorder{}
	got, err := agentsEngine(flow.WithInterceptor((&durable.Codec{}).Interceptor(rec))).Run(context.Background(), def, map[string]any{"id": "r1"})
	require.NoError(t, err)
	assert.Equal(t, want.Trace, got.Trace)
	assert.Equal(t, want.State, got.State)
	assert.Equal(t, want.Output, got.Output)
	assert.Equal(t, int64(4), got.Output)
	for _, m := range []string{"research", "judge", "score"} {
		assert.Equal(t, flow.Data(want.Outputs[m]), flow.Data(got.Outputs[m]), m)
	}
	assert.ElementsMatch(t, []string{
		"r1/research#1/llm#1", "r1/research#1/tool#1.1", "r1/research#1/tool#1.2", "r1/research#1/llm#2", "r1/research#1",
		"r1/judge#1/llm#1", "r1/judge#1", "r1/score#1/llm#1", "r1/score#1", "r1/report#1",
	}, rec.keys)
}

func TestOversizeResultNamesTheEffect(t *testing.T) {
	def, err := flow.Parse([]byte(`
schema: crewai.flow/v1
name: Big
methods:
  write:
    start: true
    do: {call: agent, with: {role: Writer, goal: Write, backstory: Writes., input: "Write a lot."}}
`), "big.yaml")
	require.NoError(t, err)
	model := fake.New(fake.Text(strings.Repeat("z", 4096)))
	codec := &durable.Codec{Max: 1024}
	_, err = flow.NewEngine(flow.WithLLM(model), flow.WithInterceptor(codec.Interceptor(nil))).
		Run(context.Background(), def, map[string]any{"id": "r9"})
	var tl *durable.PayloadTooLargeError
	require.True(t, errors.As(err, &tl), "got %v", err)
	assert.Equal(t, "r9/write#1/llm#1", tl.Key)
	assert.Contains(t, err.Error(), `method "write"`)
}
