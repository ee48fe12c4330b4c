package flow_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

// budgetChain runs three agents one after the other.
const budgetChain = `
schema: crewai.flow/v1
name: Chain
methods:
  first:
    start: true
    do: {call: agent, with: {role: One, goal: Answer, backstory: B., input: "step one", llm: openai/gpt-4o}}
  second:
    listen: first
    do: {call: agent, with: {role: Two, goal: Answer, backstory: B., input: "step two", llm: openai/gpt-4o}}
  third:
    listen: second
    do: {call: agent, with: {role: Three, goal: Answer, backstory: B., input: "step three", llm: openai/gpt-4o}}
`

// budgetTools has one agent call a tool until told otherwise.
const budgetTools = `
schema: crewai.flow/v1
name: Tools
methods:
  answer:
    start: true
    do: {call: agent, with: {role: Clerk, goal: Answer, backstory: B., tools: [count], input: "count", llm: openai/gpt-4o}}
`

// countTool counts its calls.
func countTool(calls *atomic.Int32) action.Tool {
	return action.MustNewTool("count", "Count.", func(_ context.Context, _ struct{}) (string, error) {
		calls.Add(1)
		return "counted", nil
	})
}

// toolLoop is a model that calls the tool five times, then answers.
func toolLoop(usage llm.Usage) *fake.Model {
	replies := []fake.Reply{}
	for range 5 {
		replies = append(replies, fake.Reply{Times: 1, ToolCalls: []fake.ToolCall{{Name: "count"}}, Usage: &usage})
	}
	return fake.New(append(replies, fake.Reply{Text: "Done.", Usage: &usage})...)
}

// budgetErr runs def and returns the run's BudgetError, failing without one.
func budgetErr(t *testing.T, def string, opts ...flow.Option) (*flow.BudgetError, map[int64]flow.Event) {
	t.Helper()
	opt, events := collectEvents()
	res, err := flow.NewEngine(append(opts, opt)...).Run(context.Background(), mustParse(t, def), nil)
	require.Error(t, err)
	var be *flow.BudgetError
	require.ErrorAs(t, err, &be, "%v", err)
	require.NotNil(t, res, "the partial result comes with the error")
	assert.GreaterOrEqual(t, res.Usage.Total(), be.Usage.Total(), "the result's usage is the usage so far")
	assert.Positive(t, res.Usage.Total())
	return be, events()
}

func started(events map[int64]flow.Event, kind flow.EventKind) (names []string) {
	for seq := int64(1); seq <= int64(len(events)); seq++ {
		if ev := events[seq]; ev.Kind == kind {
			names = append(names, ev.Method+ev.Tool)
		}
	}
	return names
}

func TestRunTokenBudgetStopsBeforeTheNextMethod(t *testing.T) {
	usage := llm.Usage{InputTokens: 50, OutputTokens: 10}
	model := fake.New(fake.Reply{Text: "ok", Usage: &usage})
	be, events := budgetErr(t, budgetChain, flow.WithLLM(model), flow.WithBudget(flow.Budget{MaxTokens: 100}))
	assert.Equal(t, "run", be.Scope)
	assert.Equal(t, "max_tokens", be.Budget)
	assert.Equal(t, 100.0, be.Limit)
	assert.Equal(t, 120.0, be.Used)
	assert.Equal(t, int64(120), be.Usage.Total(), "the usage so far")
	assert.Equal(t, 2, model.Calls(), "the second call finished; the third method never called the model")
	assert.Equal(t, []string{"first", "second"}, started(events, flow.MethodStarted), "third never started")
	assert.Equal(t, "flow: run budget max_tokens reached: used 120 of 100", be.Error())
	res, err := flow.NewEngine(flow.WithLLM(fake.New(fake.Reply{Text: "ok", Usage: &usage})), flow.WithBudget(flow.Budget{MaxTokens: 100})).
		Run(context.Background(), mustParse(t, budgetChain), nil)
	require.Error(t, err)
	assert.Equal(t, []string{"first", "second"}, res.Trace, "the methods that ran")
}

func TestMethodToolCallBudget(t *testing.T) {
	var calls atomic.Int32
	def := budgetTools + "    budgets: {max_tool_calls: 2}\n"
	be, events := budgetErr(t, def, flow.WithLLM(toolLoop(llm.Usage{InputTokens: 1, OutputTokens: 1})), flow.WithTools(countTool(&calls)))
	assert.Equal(t, "method answer", be.Scope)
	assert.Equal(t, "max_tool_calls", be.Budget)
	assert.Equal(t, 2.0, be.Limit)
	assert.Equal(t, int32(2), calls.Load(), "the third tool call did not run")
	assert.Len(t, started(events, flow.ToolFinished), 2)
	assert.Positive(t, be.Usage.InputTokens)
}

func TestAgentCostBudgetWithPrices(t *testing.T) {
	var calls atomic.Int32
	prices := llm.Prices{"gpt-4o": {Input: 1000, Output: 2000}} // dollars per million tokens
	def := budgetTools + `config:
  budgets:
    agents:
      Clerk: {max_cost: 0.5}
`
	// Each model call costs 300*1000/1e6 + 100*2000/1e6 = $0.50.
	be, _ := budgetErr(t, def, flow.WithLLM(toolLoop(llm.Usage{InputTokens: 300, OutputTokens: 100})),
		flow.WithTools(countTool(&calls)), flow.WithPrices(prices))
	assert.Equal(t, "agent Clerk", be.Scope)
	assert.Equal(t, "max_cost", be.Budget)
	assert.InDelta(t, 0.5, be.Used, 1e-9)
	assert.InDelta(t, 0.5, be.Cost, 1e-9, "the run's cost so far")
	assert.Equal(t, int32(0), calls.Load(), "no tool ran after the first call spent the budget")
	assert.Equal(t, "flow: agent Clerk budget max_cost reached: used $0.5000 of $0.5000", be.Error())
}

func TestMethodWallTimeBudget(t *testing.T) {
	var calls atomic.Int32
	model := fake.New(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "count"}}, Delay: 20 * time.Millisecond})
	be, _ := budgetErr(t, budgetTools, flow.WithLLM(model), flow.WithTools(countTool(&calls)),
		flow.WithMethodBudget("answer", flow.Budget{MaxWallTime: time.Millisecond}))
	assert.Equal(t, "method answer", be.Scope)
	assert.Equal(t, "max_wall_time", be.Budget)
	assert.GreaterOrEqual(t, be.Used, 0.02)
	assert.Equal(t, int32(0), calls.Load(), "the call under way finished; the tool call after it never started")
}

func TestCostBudgetNeedsPrices(t *testing.T) {
	def := budgetChain + "config: {budgets: {max_cost: 1}}\n"
	_, err := flow.NewEngine(flow.WithLLM(fake.New(fake.Text("ok")))).Run(context.Background(), mustParse(t, def), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no price is known for model "openai/gpt-4o"`)
	var be *flow.BudgetError
	assert.False(t, errors.As(err, &be), "a start-up error, not a budget reached")

	_, err = flow.NewEngine(flow.WithLLM(fake.New(fake.Text("ok"))), flow.WithPrices(llm.Prices{"openai/gpt-4o": {Input: 1}})).
		Run(context.Background(), mustParse(t, def), nil)
	assert.NoError(t, err)
}

func TestBudgetsDecode(t *testing.T) {
	def := mustParse(t, `
name: B
config:
  budgets:
    max_tokens: 1000
    max_cost: 0.25
    max_wall_time: 90s
    max_tool_calls: 7
    agents:
      Writer: {max_tokens: 10, max_wall_time: 2.5}
methods:
  m:
    start: true
    budgets: {max_tool_calls: 3}
    do: {call: expression, expr: "1"}
`)
	require.NotNil(t, def.Config.Budgets)
	assert.Equal(t, flow.Budget{MaxTokens: 1000, MaxCost: 0.25, MaxWallTime: 90 * time.Second, MaxToolCalls: 7}, def.Config.Budgets.Run)
	assert.Equal(t, map[string]flow.Budget{"Writer": {MaxTokens: 10, MaxWallTime: 2500 * time.Millisecond}}, def.Config.Budgets.Agents)
	assert.Equal(t, &flow.Budget{MaxToolCalls: 3}, def.Methods[0].Budget)
}

func TestBadBudgetsAreErrorsWithPositions(t *testing.T) {
	tests := []struct{ name, block, want string }{
		{"unknown key", "{max_tokenz: 5}", `test.yaml:4:5: error: config.budgets.max_tokenz: Extra inputs are not permitted`},
		{"negative", "{max_tokens: -5}", `test.yaml:4:5: error: config.budgets.max_tokens: Input should be greater than 0`},
		{"bad duration", "{max_wall_time: soon}", `config.budgets.max_wall_time: max_wall_time must be seconds or a duration such as 90s or 5m, got "soon"`},
		{"cost not a number", "{max_cost: [1]}", `config.budgets.max_cost: Input should be a valid number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := flow.Parse([]byte("name: B\nconfig:\n  budgets:\n    "+tt.block[1:len(tt.block)-1]+"\nmethods:\n  m: {start: true, do: {call: expression, expr: '1'}}\n"), "test.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestBudgetsRoundTripThroughYAML(t *testing.T) {
	def := mustParse(t, `
name: B
config:
  budgets:
    max_cost: 0.25
    max_wall_time: 90s
    agents:
      Writer: {max_tokens: 10}
methods:
  m:
    start: true
    budgets: {max_tool_calls: 3, max_wall_time: 1.5}
    do: {call: expression, expr: "1"}
`)
	out, err := def.YAML()
	require.NoError(t, err)
	back := mustParse(t, string(out))
	assert.Equal(t, def.Config.Budgets, back.Config.Budgets)
	assert.Equal(t, def.Methods[0].Budget, back.Methods[0].Budget)
}

// gatedModel holds beta's model call until release is closed, and alpha's
// until beta's has started, so that beta's call is under way when alpha
// spends the budget.
type gatedModel struct {
	*fake.Model
	betaStarted, release chan struct{}
}

func (g gatedModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	var text strings.Builder
	for _, m := range req.Messages {
		text.WriteString(m.Text())
	}
	wait := g.betaStarted
	if strings.Contains(text.String(), "beta") {
		close(g.betaStarted)
		wait = g.release
	}
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Model.Generate(ctx, req)
}

func TestBudgetLetsParallelBranchesFinishTheirStep(t *testing.T) {
	def := `
schema: crewai.flow/v1
name: Twins
methods:
  alpha:
    start: true
    do: {call: agent, with: {role: Alpha, goal: Answer, backstory: B., tools: [count], input: "alpha", llm: openai/gpt-4o}}
  beta:
    start: true
    do: {call: agent, with: {role: Beta, goal: Answer, backstory: B., input: "beta", llm: openai/gpt-4o}}
`
	var calls atomic.Int32
	model := gatedModel{Model: fake.New(
		fake.Reply{Match: "beta", Text: "Beta done.", Usage: &llm.Usage{InputTokens: 5, OutputTokens: 5}},
		fake.Reply{Match: "alpha", ToolCalls: []fake.ToolCall{{Name: "count"}}, Usage: &llm.Usage{InputTokens: 90, OutputTokens: 10}},
	), betaStarted: make(chan struct{}), release: make(chan struct{})}
	var once sync.Once
	released := flow.WithEvents(func(ev flow.Event) {
		if ev.Agent == "Alpha" && ev.Err != nil { // alpha was refused its next step
			once.Do(func() { close(model.release) })
		}
	})
	be, events := budgetErr(t, def, flow.WithLLM(model), flow.WithTools(countTool(&calls)), released,
		flow.WithBudget(flow.Budget{MaxTokens: 50}))
	assert.Equal(t, "max_tokens", be.Budget)
	assert.Equal(t, int32(0), calls.Load(), "alpha's tool call was refused")
	var betaDone, betaFailed bool
	for _, ev := range events {
		if ev.Agent == "Beta" && ev.Kind == flow.LLMFinished {
			betaDone = true
		}
		if ev.Agent == "Beta" && ev.Kind == flow.LLMFailed {
			betaFailed = true
		}
	}
	assert.True(t, betaDone, "beta's model call under way finished")
	assert.False(t, betaFailed, "beta's model call was not cancelled")
}
