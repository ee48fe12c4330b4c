package action_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

type searchIn struct {
	Query string `json:"query" jsonschema:"description=What to search for"`
}

func searchTool(calls *atomic.Int64) action.Tool {
	return action.MustNewTool("search", "Search the web", func(ctx context.Context, in searchIn) (string, error) {
		if calls != nil {
			calls.Add(1)
		}
		return "results for " + in.Query, nil
	})
}

// recorder collects events.
type recorder struct {
	mu     sync.Mutex
	events []action.Event
}

func (r *recorder) observe(e action.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) kinds(k action.EventKind) []action.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []action.Event
	for _, e := range r.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func agent(m llm.LLM, tools ...action.Tool) *action.AgentSpec {
	return &action.AgentSpec{Role: "Researcher", Goal: "Find facts", Backstory: "Curious.", Model: m, Tools: tools}
}

func TestAgentNativeToolCalling(t *testing.T) {
	m := fake.New(
		fake.Times(1, fake.Match("Task: Research AI", fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI"})))),
		fake.Match("results for AI", fake.Text("AI is moving fast.")),
	)
	var n atomic.Int64
	rec := &recorder{}
	out, err := action.RunAgent(t.Context(), agent(m, searchTool(&n)), action.AgentTask{Input: "Research AI"}, &action.RunOptions{Observer: rec.observe})
	require.NoError(t, err)
	assert.Equal(t, "AI is moving fast.", out.Raw)
	assert.Equal(t, "Researcher", out.AgentRole)
	assert.Equal(t, int64(1), n.Load())
	assert.Equal(t, int64(2), out.Usage.Requests)
	reqs := m.Requests()
	require.Len(t, reqs, 2)
	require.Len(t, reqs[0].Tools, 1, "native tools are offered")
	assert.Contains(t, reqs[0].Messages[0].Text(), "You are Researcher. Curious.")
	assert.Equal(t, llm.RoleTool, reqs[1].Messages[3].Role)
	assert.Len(t, rec.kinds(action.EventLLMCompleted), 2)
	require.Len(t, rec.kinds(action.EventToolFinished), 1)
	assert.Equal(t, "results for AI", rec.kinds(action.EventToolFinished)[0].Result)
	assert.Len(t, rec.kinds(action.EventAgentCompleted), 1)
	var sum llm.Usage
	for _, e := range rec.kinds(action.EventLLMCompleted) {
		sum.Add(e.Usage)
	}
	assert.Equal(t, out.Usage, sum, "agent usage is the sum of its calls")
}

func TestAgentReActToolCalling(t *testing.T) {
	m := fake.New(
		fake.Times(1, fake.Match("Task: Research AI", fake.Reply{Text: "Thought: I should search", ToolCalls: []fake.ToolCall{fake.Call("search", map[string]any{"query": "AI"})}})),
		fake.Match("Observation: results for AI", fake.Text("Thought: I know it\nFinal Answer: AI is moving fast.")),
	).WithFunctionCalling(false)
	out, err := action.RunAgent(t.Context(), agent(m, searchTool(nil)), action.AgentTask{Input: "Research AI"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "AI is moving fast.", out.Raw)
	reqs := m.Requests()
	require.Len(t, reqs, 2)
	assert.Empty(t, reqs[0].Tools, "no native tools on the ReAct path")
	assert.Contains(t, reqs[0].Messages[0].Text(), "Action Input:")
	assert.Equal(t, []string{"\nObservation:"}, reqs[0].Stop)
}

func TestAgentDowngradesWhenToolsUnsupported(t *testing.T) {
	// The model says it supports tools but the provider refuses them.
	inner := fake.New(fake.Match("text instead", fake.Text("Final Answer: done"))).WithFunctionCalling(false)
	m := capable{inner}
	out, err := action.RunAgent(t.Context(), agent(m, searchTool(nil)), action.AgentTask{Input: "x"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "done", out.Raw)
}

// capable claims native tool calls whatever the wrapped model says.
type capable struct{ *fake.Model }

func (capable) Capabilities() llm.Capabilities { return llm.Capabilities{ToolCalls: true} }

func TestAgentWithoutToolsAnswersDirectly(t *testing.T) {
	m := fake.New(fake.Text("Plain answer."))
	out, err := action.RunAgent(t.Context(), agent(m), action.AgentTask{Input: "Say something", ExpectedOutput: "A sentence", Context: "Earlier work"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Plain answer.", out.Raw)
	user := m.Requests()[0].Messages[1].Text()
	assert.Contains(t, user, "Task: Say something")
	assert.Contains(t, user, "Expected output: A sentence")
	assert.Contains(t, user, "Earlier work")
	assert.Equal(t, "Plain answer.", out.Map()["raw"])
}

func TestParallelToolCallsRunConcurrently(t *testing.T) {
	var running, peak atomic.Int64
	slow := action.MustNewTool("slow", "Waits", func(ctx context.Context, in searchIn) (string, error) {
		cur := running.Add(1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		running.Add(-1)
		return "done " + in.Query, nil
	})
	m := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("slow", `{"query":"a"}`), fake.Call("slow", `{"query":"b"}`), fake.Call("slow", `{"query":"c"}`))),
		fake.Match(`(?s)done a.*done b.*done c`, fake.Text("all done")),
	)
	out, err := action.RunAgent(t.Context(), agent(m, slow), action.AgentTask{Input: "go"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "all done", out.Raw)
	assert.Equal(t, int64(3), peak.Load(), "the three calls overlap")
	msgs := m.Requests()[1].Messages
	assert.Equal(t, []string{"done a", "done b", "done c"}, []string{msgs[3].Text(), msgs[4].Text(), msgs[5].Text()}, "results keep call order")
}

func TestToolErrorsBecomeObservations(t *testing.T) {
	failing := action.MustNewTool("fail", "Fails", func(ctx context.Context, in searchIn) (string, error) {
		return "", errors.New("backend down")
	})
	hang := action.MustNewTool("hang", "Hangs", func(ctx context.Context, in searchIn) (string, error) {
		time.Sleep(time.Second)
		return "late", nil
	})
	free := &action.ToolFunc{
		ToolSpec: llm.ToolSpec{Name: "free", Parameters: map[string]any{"type": "object", "required": []any{"n"}, "properties": map[string]any{"n": map[string]any{"type": "integer"}}}},
		Fn:       func(ctx context.Context, args json.RawMessage) (any, error) { return "ok", nil },
	}
	tests := []struct {
		name   string
		call   fake.ToolCall
		reason string
		obs    string
	}{
		{"unknown tool", fake.Call("nope", `{}`), action.FailureUnknownTool, `there is no tool named "nope"`},
		{"invalid JSON", fake.Call("search", `{"query":`), action.FailureInvalidInput, "not valid JSON"},
		{"schema mismatch typed", fake.Call("search", `{"query": ["x"]}`), action.FailureInvalidInput, "do not match its schema"},
		{"schema mismatch func", fake.Call("free", `{"n": "many"}`), action.FailureInvalidInput, "do not match its schema"},
		{"tool error", fake.Call("fail", `{"query":"x"}`), action.FailureToolError, "backend down"},
		{"timeout", fake.Call("hang", `{"query":"x"}`), action.FailureTimeout, "did not finish within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fake.New(fake.Times(1, fake.ToolCalls(tt.call)), fake.Match("Error:", fake.Text("recovered")))
			spec := agent(m, searchTool(nil), failing, hang, free)
			spec.ToolTimeout = 20 * time.Millisecond
			rec := &recorder{}
			out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, &action.RunOptions{Observer: rec.observe})
			require.NoError(t, err)
			assert.Equal(t, "recovered", out.Raw)
			require.Len(t, out.ToolFailures, 1)
			assert.Equal(t, tt.reason, out.ToolFailures[0].Reason)
			assert.Contains(t, m.Requests()[1].Messages[3].Text(), tt.obs)
			require.Len(t, rec.kinds(action.EventToolError), 1)
			assert.Error(t, rec.kinds(action.EventToolError)[0].Err)
		})
	}
}

func TestRepeatedIdenticalCallsStop(t *testing.T) {
	var n atomic.Int64
	m := fake.New(
		fake.Match("steps you are allowed", fake.Text("forced answer")),
		fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI"})),
	)
	out, err := action.RunAgent(t.Context(), agent(m, searchTool(&n)), action.AgentTask{Input: "go"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "forced answer", out.Raw)
	assert.Equal(t, int64(3), n.Load(), "one call and two identical repeats, then stop")
	assert.Contains(t, m.Requests()[2].Messages[5].Text(), "already called this tool")
}

func TestMaxIterForcesFinalAnswer(t *testing.T) {
	var n atomic.Int64
	m := fake.New(
		fake.Match("steps you are allowed", fake.Text("best effort")),
		fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI"})),
	)
	spec := agent(m, action.MustNewTool("search", "Search", func(ctx context.Context, in searchIn) (int64, error) {
		return n.Add(1), nil // a new result each time: not a repeat
	}))
	spec.MaxIter = 3
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "best effort", out.Raw)
	assert.Equal(t, int64(3), n.Load())
	assert.Equal(t, 4, m.Calls())
	last := m.Requests()[3]
	assert.Equal(t, llm.ToolChoiceNone, last.ToolChoice, "the forced answer may not call tools")
}

func TestResultAsAnswer(t *testing.T) {
	m := fake.New(fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI"})))
	out, err := action.RunAgent(t.Context(), agent(m, action.ResultAsAnswer(searchTool(nil))), action.AgentTask{Input: "go"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "results for AI", out.Raw)
	assert.Equal(t, 1, m.Calls())
}

func TestStructuredOutputRetriedWithValidationError(t *testing.T) {
	m := fake.New(
		fake.Match("does not match the required JSON Schema", fake.JSON(map[string]any{"category": "billing", "score": 2})),
		fake.Text(`{"category": "billing"}`),
	)
	spec := agent(m)
	spec.ResponseSchema = map[string]any{"type": "object", "required": []any{"category", "score"},
		"properties": map[string]any{"category": map[string]any{"type": "string"}, "score": map[string]any{"type": "integer"}}}
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "classify"}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"category": "billing", "score": int64(2)}, out.Pydantic)
	assert.Equal(t, 2, m.Calls())
	require.NotNil(t, m.Requests()[0].ResponseSchema)
	assert.Contains(t, m.Requests()[1].Messages[3].Text(), "score")
	assert.Equal(t, int64(2), out.Usage.Requests)
}

func TestStructuredOutputFailsAfterOneRetry(t *testing.T) {
	m := fake.New(fake.Text("not json"))
	spec := agent(m)
	spec.ResponseSchema = map[string]any{"type": "object", "required": []any{"a"}}
	_, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "x"}, nil)
	var se *action.StructuredOutputError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 2, m.Calls())
}

func TestMaxExecutionTime(t *testing.T) {
	m := fake.New(fake.Reply{Text: "slow", Delay: time.Second})
	spec := agent(m)
	spec.MaxExecutionTime = 20 * time.Millisecond
	_, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "x"}, nil)
	var te *action.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Contains(t, err.Error(), "timed out after 20ms")
}

func TestStreamingReportsDeltas(t *testing.T) {
	m := fake.New(fake.Text("streamed answer text"))
	rec := &recorder{}
	out, err := action.RunAgent(t.Context(), agent(m), action.AgentTask{Input: "x"}, &action.RunOptions{Observer: rec.observe, Stream: true})
	require.NoError(t, err)
	assert.Equal(t, "streamed answer text", out.Raw)
	var text string
	for _, e := range rec.kinds(action.EventLLMChunk) {
		text += e.TextDelta
	}
	assert.Equal(t, "streamed answer text", text)
}

func TestAgentModelErrorFails(t *testing.T) {
	m := fake.New(fake.Error("boom"))
	rec := &recorder{}
	_, err := action.RunAgent(t.Context(), agent(m), action.AgentTask{Input: "x"}, &action.RunOptions{Observer: rec.observe})
	var ae *action.AgentError
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, err.Error(), "boom")
	assert.Len(t, rec.kinds(action.EventLLMFailed), 1)
	assert.Len(t, rec.kinds(action.EventAgentError), 1)
}

type memo struct{ saved []string }

func (m *memo) Recall(ctx context.Context, q string) ([]string, error) {
	return []string{"the user prefers short answers"}, nil
}
func (m *memo) Remember(ctx context.Context, text string) error {
	m.saved = append(m.saved, text)
	return nil
}

func TestAgentMemoryAndOutputShape(t *testing.T) {
	m := fake.New(fake.Match("prefers short answers", fake.Reply{Text: "Short.", Usage: &llm.Usage{InputTokens: 10, OutputTokens: 2, CachedInputTokens: 4}}))
	mem := &memo{}
	spec := agent(m)
	spec.Memory = mem
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "Explain"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"Task: Explain\nResult: Short."}, mem.saved)
	got := out.Map()
	assert.Equal(t, map[string]any{"total_tokens": int64(12), "prompt_tokens": int64(10), "cached_prompt_tokens": int64(4),
		"completion_tokens": int64(2), "reasoning_tokens": int64(0), "cache_creation_tokens": int64(0), "successful_requests": int64(1)}, got["usage_metrics"])
	assert.Equal(t, "Researcher", got["agent_role"])
	assert.Nil(t, got["pydantic"])
	assert.Len(t, got["messages"], 3)
	assert.Equal(t, "Short.", out.String())
}
