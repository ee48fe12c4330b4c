package flow_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

func TestInterceptorsWrapEveryMethodInOrder(t *testing.T) {
	var mu sync.Mutex
	var log []string
	record := func(name string) flow.Interceptor {
		return func(ctx context.Context, c flow.MethodCall, next func(context.Context) (any, error)) (any, error) {
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
	recorded := func(ctx context.Context, c flow.MethodCall, next func(context.Context) (any, error)) (any, error) {
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
		func(context.Context, *flow.Input) (any, error) { return nil, fmt.Errorf("must not run") }))
	res, err := eng.Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "from the journal", res.Output)
}
