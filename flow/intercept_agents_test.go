package flow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

func passThrough(ctx context.Context, _ flow.Effect, next func(context.Context) (any, error)) (any, error) {
	return next(ctx)
}

const lookupAgentFlow = `
schema: crewai.flow/v1
name: Support
methods:
  answer:
    start: true
    do:
      call: agent
      with: {role: Support, goal: Answer, backstory: Helpful., tools: [lookup], input: "Where is order 5?", llm: openai/gpt-4o-mini}
`

// TestPassThroughInterceptorChangesNothing runs the same agent with and
// without an interceptor that only calls next, for every kind of tool.
func TestPassThroughInterceptorChangesNothing(t *testing.T) {
	typed := func() action.Tool {
		return action.MustNewTool("lookup", "Look up an order.", func(_ context.Context, in struct {
			ID int `json:"id"`
		}) (string, error) {
			return fmt.Sprintf("order %d (an int) shipped", in.ID), nil
		})
	}
	plain := func() action.Tool {
		return &action.ToolFunc{ToolSpec: llm.ToolSpec{Name: "lookup", Description: "Look up an order."},
			Fn: func(_ context.Context, args json.RawMessage) (any, error) { return "raw " + string(args), nil }}
	}
	tools := map[string]func() action.Tool{
		"typed tool coerces a string to an int": typed,
		"result_as_answer typed tool":           func() action.Tool { return action.ResultAsAnswer(typed()) },
		"function tool":                         plain,
		"result_as_answer function tool":        func() action.Tool { return action.ResultAsAnswer(plain()) },
	}
	for name, tool := range tools {
		t.Run(name, func(t *testing.T) {
			run := func(opts ...flow.Option) any {
				model := fake.New(
					fake.Reply{Match: "shipped|raw", Text: "Done."},
					fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{"id": "5"}`}}},
				)
				opts = append(opts, flow.WithLLM(model), flow.WithTools(tool()))
				res, err := flow.NewEngine(opts...).Run(context.Background(), mustParse(t, lookupAgentFlow), nil)
				require.NoError(t, err)
				return res.Outputs["answer"].(map[string]any)["raw"]
			}
			want := run()
			assert.Equal(t, want, run(flow.WithInterceptor(passThrough)))
		})
	}
	// The expectations above compare two runs; these pin what both say.
	model := fake.New(fake.Reply{Match: "shipped", Text: "Done."},
		fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{"id": "5"}`}}})
	res, err := flow.NewEngine(flow.WithInterceptor(passThrough), flow.WithLLM(model), flow.WithTools(action.ResultAsAnswer(typed()))).
		Run(context.Background(), mustParse(t, lookupAgentFlow), nil)
	require.NoError(t, err)
	assert.Equal(t, "order 5 (an int) shipped", res.Outputs["answer"].(map[string]any)["raw"])
}

// TestInterceptorNamesTheAgentsModel checks that a model call's Effect
// names the model the agent's definition asks for.
func TestInterceptorNamesTheAgentsModel(t *testing.T) {
	var mu sync.Mutex
	var names []string
	ic := func(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
		mu.Lock()
		names = append(names, string(e.Kind)+":"+e.Name)
		mu.Unlock()
		return next(ctx)
	}
	model := fake.New(fake.Reply{Match: "shipped", Text: "Done."},
		fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{"id": 5}`}}})
	lookup := action.MustNewTool("lookup", "Look up an order.", func(_ context.Context, in struct {
		ID int `json:"id"`
	}) (string, error) {
		return "shipped", nil
	})
	_, err := flow.NewEngine(flow.WithInterceptor(ic), flow.WithLLM(model), flow.WithTools(lookup)).
		Run(context.Background(), mustParse(t, lookupAgentFlow), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"method:", "llm:openai/gpt-4o-mini", "tool:lookup", "llm:openai/gpt-4o-mini"}, names)
}

// TestInterceptorSeesStreamedModelCalls checks that stream: true does not
// switch interceptors off, and that an interceptor can answer a streamed
// call from a record.
func TestInterceptorSeesStreamedModelCalls(t *testing.T) {
	var mu sync.Mutex
	var kinds []string
	ic := func(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
		mu.Lock()
		kinds = append(kinds, string(e.Kind))
		mu.Unlock()
		if e.Kind == flow.EffectLLM {
			return &llm.Response{Message: llm.Assistant("From the record.")}, nil
		}
		return next(ctx)
	}
	def := mustParse(t, `
schema: crewai.flow/v1
name: Streamed
config: {stream: true}
methods:
  answer:
    start: true
    do: {call: agent, with: {role: Writer, goal: Write, backstory: Writes., input: "Say hi."}}
`)
	model := fake.New(fake.Reply{Text: "From the model."})
	res, err := flow.NewEngine(flow.WithInterceptor(ic), flow.WithLLM(model)).Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "From the record.", res.Outputs["answer"].(map[string]any)["raw"])
	assert.Equal(t, []string{"method", "llm"}, kinds)
	assert.Zero(t, model.Calls(), "the recorded answer replaced the model call")
}
