package flow_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

func TestInterceptorsWrapEveryMethodInOrder(t *testing.T) {
	var mu sync.Mutex
	var log []string
	record := func(name string) flow.Interceptor {
		return func(ctx context.Context, c flow.Effect, next func(context.Context) (any, error)) (any, error) {
			mu.Lock()
			log = append(log, fmt.Sprintf("%s>%s#%d", name, c.Method, c.Invocation))
			mu.Unlock()
			out, err := next(ctx)
			mu.Lock()
			log = append(log, fmt.Sprintf("%s<%s", name, c.Method))
			mu.Unlock()
			return out, err
		}
	}
	def := mustParse(t, `
schema: crewai.flow/v1
name: Wrapped
methods:
  a: {start: true, do: {call: expression, expr: "1"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a + 1"}}
`)
	res, err := flow.NewEngine(flow.WithInterceptor(record("outer")), flow.WithInterceptor(record("inner"))).
		Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(2), res.Output)
	assert.Equal(t, []string{
		"outer>a#1", "inner>a#1", "inner<a", "outer<a",
		"outer>b#1", "inner>b#1", "inner<b", "outer<b",
	}, log)
}

func TestInterceptorCanReplaceAResult(t *testing.T) {
	recorded := func(ctx context.Context, c flow.Effect, next func(context.Context) (any, error)) (any, error) {
		if c.Method == "fetch" {
			return "from the journal", nil
		}
		return next(ctx)
	}
	def := mustParse(t, `
schema: crewai.flow/v1
name: Replayed
methods:
  fetch: {start: true, do: {ref: "t:never"}}
  use: {listen: fetch, do: {call: expression, expr: "outputs.fetch"}}
`)
	eng := flow.NewEngine(flow.WithInterceptor(recorded), flow.WithCode("t:never",
		func(context.Context, flow.Input) (any, error) { return nil, fmt.Errorf("must not run") }))
	res, err := eng.Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "from the journal", res.Output)
}

func TestInterceptorSeesAgentModelAndToolCalls(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	ic := func(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s:%s:%d:%d", e.Kind, e.Name, e.Invocation, e.Index))
		mu.Unlock()
		return next(ctx)
	}
	lookup := action.MustNewTool("lookup", "Look up an order.", func(_ context.Context, in struct {
		ID string `json:"id"`
	}) (string, error) {
		return "order " + in.ID + " shipped", nil
	})
	model := fake.New(
		fake.Reply{Match: "shipped", Text: "It shipped."},
		fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: map[string]any{"id": "A1"}}}},
	)
	def := mustParse(t, `
schema: crewai.flow/v1
name: Support
methods:
  answer:
    start: true
    do:
      call: agent
      with: {role: Support, goal: Answer, backstory: Helpful., tools: [lookup], input: "Where is order A1?"}
`)
	res, err := flow.NewEngine(flow.WithInterceptor(ic), flow.WithLLM(model), flow.WithTools(lookup)).
		Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "It shipped.", res.Outputs["answer"].(map[string]any)["raw"])
	assert.Equal(t, []string{"method::1:0", "llm::1:1", "tool:lookup:1:1", "llm::1:2"}, seen)
}
