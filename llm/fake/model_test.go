package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

func ask(text string) *llm.Request {
	return &llm.Request{Model: "gpt-4o", Messages: []llm.Message{llm.System("You are a helper."), llm.User(text)}}
}

func TestRepliesAnswerInOrder(t *testing.T) {
	m := fake.New(
		fake.Times(1, fake.Match("Follow-up router", fake.Text("followup"))),
		fake.Match(`(?s)Research.*AI`, fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI agents"}))),
		fake.Match("classify", fake.JSON(map[string]any{"category": "billing", "score": 1})),
		fake.Text("default"),
	)
	require.NoError(t, m.Err())
	tests := []struct {
		name      string
		prompt    string
		wantText  string
		wantCalls []llm.ToolCall
		finish    llm.FinishReason
	}{
		{"first match", "Follow-up router: pick one", "followup", nil, llm.FinishStop},
		{"times used up falls through", "Follow-up router: again", "default", nil, llm.FinishStop},
		{"regex over the transcript", "Research the topic\nof AI", "", []llm.ToolCall{{ID: "call_1", Name: "search", Arguments: json.RawMessage(`{"query":"AI agents"}`)}}, llm.FinishToolCalls},
		{"ids increase", "Research AI again", "", []llm.ToolCall{{ID: "call_2", Name: "search", Arguments: json.RawMessage(`{"query":"AI agents"}`)}}, llm.FinishToolCalls},
		{"json reply", "please classify", `{"category":"billing","score":1}`, nil, llm.FinishStop},
		{"entry without match answers anything", "hello", "default", nil, llm.FinishStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := m.Generate(t.Context(), ask(tt.prompt))
			require.NoError(t, err)
			assert.Equal(t, tt.wantText, resp.Text())
			assert.Equal(t, tt.wantCalls, resp.Message.ToolCalls)
			assert.Equal(t, tt.finish, resp.FinishReason)
			assert.Equal(t, llm.RoleAssistant, resp.Message.Role)
			assert.Equal(t, "gpt-4o", resp.Model)
		})
	}
	assert.Equal(t, len(tests), m.Calls())
}

func TestTranscriptCoversEveryRole(t *testing.T) {
	m := fake.New(fake.Match(`(?m)^sys\nuser\nthought\nresult$`, fake.Text("ok")))
	call := llm.ToolCall{ID: "c1", Name: "search", Arguments: json.RawMessage(`{}`)}
	resp, err := m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{
		llm.System("sys"), llm.User("user"), llm.AssistantToolCalls("thought", call), llm.AssistantToolCalls("", call), llm.ToolResult("c1", "search", "result"),
	}})
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Text())
	assert.Equal(t, "fake", resp.Model, "without a model name the response says fake")
}

func TestErrorReplies(t *testing.T) {
	m := fake.New(
		fake.Match("limit", fake.Reply{Error: "rate limited", Status: 429}),
		fake.Error("model exploded"),
	)
	_, err := m.Generate(t.Context(), ask("hit the limit"))
	require.ErrorContains(t, err, "rate limited")
	var ae *llm.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 429, ae.Status)
	assert.Equal(t, "fake", ae.Provider)
	assert.True(t, llm.IsRetryable(err))

	_, err = m.Generate(t.Context(), ask("anything"))
	require.ErrorContains(t, err, "model exploded")
	assert.False(t, llm.IsRetryable(err))
}

func TestUsage(t *testing.T) {
	m := fake.New(
		fake.Match("explicit", fake.Reply{Text: "x", Usage: &llm.Usage{InputTokens: 100, OutputTokens: 7, CachedInputTokens: 50}}),
		fake.Match("tool", fake.ToolCalls(fake.Call("search", `{"q":"a"}`))),
		fake.Text("12345678"),
	)
	tests := []struct {
		name string
		req  *llm.Request
		want llm.Usage
	}{
		{"explicit usage", ask("explicit"), llm.Usage{InputTokens: 100, OutputTokens: 7, CachedInputTokens: 50, Requests: 1}},
		// transcript "You are a helper.\nhello" is 23 bytes -> 6 tokens; reply 8 bytes -> 2 tokens.
		{"estimated", ask("hello"), llm.Usage{InputTokens: 6, OutputTokens: 2, Requests: 1}},
		// "You are a helper.\ntool" is 22 bytes -> 6; "search" + `{"q":"a"}` is 15 bytes -> 4.
		{"estimated with tool calls", ask("tool"), llm.Usage{InputTokens: 6, OutputTokens: 4, Requests: 1}},
	}
	var total llm.Usage
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := m.Generate(t.Context(), tt.req)
			require.NoError(t, err)
			assert.Equal(t, tt.want, resp.Usage)
			total.Add(resp.Usage)
		})
	}
	assert.Equal(t, int64(3), total.Requests)
	assert.Equal(t, int64(112+13), total.Total())
}

func TestUnmatchedRequestQuotesTranscriptEnd(t *testing.T) {
	m := fake.New(fake.Times(1, fake.Match("first", fake.Text("a"))), fake.Match("never", fake.Text("b")))
	_, err := m.Generate(t.Context(), ask("first"))
	require.NoError(t, err)

	long := strings.Repeat("x", 500) + " the tail of the question"
	_, err = m.Generate(t.Context(), ask(long))
	require.ErrorIs(t, err, fake.ErrUnmatched)
	msg := err.Error()
	assert.Contains(t, msg, "the tail of the question")
	assert.Contains(t, msg, "...xxx")
	assert.NotContains(t, msg, "You are a helper.", "only the end of the transcript is quoted")
	assert.Contains(t, msg, `"gpt-4o" (call 2)`)
	assert.Contains(t, msg, "1 of 2 replies have used up their times")
}

func TestInvalidRepliesFailEveryCall(t *testing.T) {
	tests := []struct {
		name  string
		reply fake.Reply
		want  string
	}{
		{"bad regexp", fake.Match("(", fake.Text("x")), "fake: replies[1].match: invalid RE2 expression"},
		{"text and json", fake.Reply{Text: "a", JSON: 1}, "replies[1].json: a reply has either text or json"},
		{"error and text", fake.Reply{Error: "e", Text: "a"}, "replies[1].error: a reply has either error or text"},
		{"negative times", fake.Reply{Times: -1}, "replies[1].times: must be positive"},
		{"status without error", fake.Reply{Status: 500, Text: "a"}, "replies[1].status"},
		{"tool call without name", fake.ToolCalls(fake.Call("", nil)), "replies[1].tool_calls[0].name: missing tool name"},
		{"unencodable json", fake.JSON(func() {}), "replies[1].json: cannot encode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fake.New(fake.Text("fine"), tt.reply)
			require.ErrorContains(t, m.Err(), tt.want)
			_, err := m.Generate(t.Context(), ask("hi"))
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestRequestsAreRecordedCopies(t *testing.T) {
	m := fake.New(fake.Text("ok"))
	req := ask("hello")
	_, err := m.Generate(t.Context(), req)
	require.NoError(t, err)
	req.Messages[1].Parts[0].Text = "changed by the caller"

	got := m.Requests()
	require.Len(t, got, 1)
	assert.Equal(t, "hello", got[0].Messages[1].Text())
	got[0].Messages[1].Parts[0].Text = "changed by the test"
	assert.Equal(t, "hello", m.Requests()[0].Messages[1].Text())

	m.Reset()
	assert.Empty(t, m.Requests())
	assert.Zero(t, m.Calls())

	m.WithRecording(false)
	_, err = m.Generate(t.Context(), ask("x"))
	require.NoError(t, err)
	assert.Empty(t, m.Requests())
	assert.Equal(t, 1, m.Calls())
}

func TestResetRestoresTimesAndIDs(t *testing.T) {
	m := fake.New(fake.Times(1, fake.ToolCalls(fake.Call("f", nil))))
	for range 2 {
		resp, err := m.Generate(t.Context(), ask("x"))
		require.NoError(t, err)
		assert.Equal(t, "call_1", resp.Message.ToolCalls[0].ID)
		assert.JSONEq(t, `{}`, string(resp.Message.ToolCalls[0].Arguments))
		_, err = m.Generate(t.Context(), ask("x"))
		require.ErrorIs(t, err, fake.ErrUnmatched)
		m.Reset()
	}
}

func TestInvalidRequests(t *testing.T) {
	m := fake.New(fake.Text("ok"))
	_, err := m.Generate(t.Context(), &llm.Request{})
	require.ErrorContains(t, err, "fake: llm: invalid request: no messages")
	_, err = m.Generate(t.Context(), nil)
	require.Error(t, err)
	assert.Equal(t, 2, m.Calls())
}

func TestWithoutFunctionCalling(t *testing.T) {
	m := fake.New(
		fake.Match("two", fake.ToolCalls(fake.Call("a", nil), fake.Call("b", nil))),
		fake.Reply{Text: "Thought: I should search", ToolCalls: []fake.ToolCall{fake.Call("search", map[string]any{"query": "AI"})}},
	).WithFunctionCalling(false)
	assert.False(t, llm.SupportsToolCalls(m))
	assert.Equal(t, llm.Capabilities{StructuredOutput: true, Streaming: true}, m.Capabilities())

	req := ask("go")
	req.Tools = []llm.ToolSpec{{Name: "search"}}
	_, err := m.Generate(t.Context(), req)
	require.Error(t, err)
	assert.True(t, llm.IsToolsUnsupported(err), err.Error())

	resp, err := m.Generate(t.Context(), ask("go"))
	require.NoError(t, err)
	assert.Equal(t, "Thought: I should search\nAction: search\nAction Input: {\"query\":\"AI\"}", resp.Text())
	assert.Empty(t, resp.Message.ToolCalls)
	assert.Equal(t, llm.FinishStop, resp.FinishReason)

	_, err = m.Generate(t.Context(), ask("two"))
	require.ErrorContains(t, err, "2 tool calls but function_calling is false")

	m.WithFunctionCalling(true)
	assert.True(t, llm.SupportsToolCalls(m))
}

func TestToolCallArguments(t *testing.T) {
	tests := []struct {
		name string
		args any
		want string
	}{
		{"nil", nil, `{}`},
		{"map", map[string]any{"b": 1, "a": "<x>"}, `{"a":"<x>","b":1}`},
		{"string verbatim", `{"q": "x"}`, `{"q": "x"}`},
		{"invalid JSON text kept", `not json`, `not json`},
		{"raw", json.RawMessage(`{"n":1}`), `{"n":1}`},
		{"struct", struct {
			Query string `json:"query"`
		}{"go"}, `{"query":"go"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fake.New(fake.ToolCalls(fake.ToolCall{ID: "mine", Name: "f", Arguments: tt.args}))
			resp, err := m.Generate(t.Context(), ask("x"))
			require.NoError(t, err)
			require.Len(t, resp.Message.ToolCalls, 1)
			assert.Equal(t, "mine", resp.Message.ToolCalls[0].ID)
			assert.Equal(t, tt.want, string(resp.Message.ToolCalls[0].Arguments))
		})
	}
}

func TestFinishReasonOverride(t *testing.T) {
	m := fake.New(fake.Reply{Text: "cut sh", FinishReason: llm.FinishLength})
	resp, err := m.Generate(t.Context(), ask("x"))
	require.NoError(t, err)
	assert.Equal(t, llm.FinishLength, resp.FinishReason)
}

func TestDelayHonorsCancellation(t *testing.T) {
	m := fake.New(fake.Reply{Text: "slow", Delay: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	_, err := m.Generate(ctx, ask("x"))
	require.ErrorIs(t, err, context.DeadlineExceeded)

	m = fake.New(fake.Reply{Text: "quick", Delay: time.Millisecond})
	resp, err := m.Generate(t.Context(), ask("x"))
	require.NoError(t, err)
	assert.Equal(t, "quick", resp.Text())
}

func TestCanceledContext(t *testing.T) {
	m := fake.New(fake.Text("ok"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := m.Generate(ctx, ask("x"))
	require.ErrorIs(t, err, context.Canceled)
}

func TestConcurrentCallsRespectTimes(t *testing.T) {
	m := fake.New(
		fake.Times(10, fake.Match("go", fake.ToolCalls(fake.Call("f", nil)))),
		fake.Text("rest"),
	)
	const n = 64
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[string]bool{}
		answers = map[string]int{}
	)
	for i := range n {
		wg.Go(func() {
			resp, err := m.Generate(context.Background(), ask(fmt.Sprintf("go %d", i)))
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range resp.Message.ToolCalls {
				ids[c.ID] = true
				answers["tool"]++
			}
			if resp.Text() != "" {
				answers[resp.Text()]++
			}
		})
	}
	wg.Wait()
	assert.Equal(t, map[string]int{"tool": 10, "rest": n - 10}, answers)
	assert.Len(t, ids, 10, "tool call ids are unique")
	assert.Len(t, m.Requests(), n)
	assert.Equal(t, n, m.Calls())
}

func TestStream(t *testing.T) {
	m := fake.New(
		fake.Match("tool", fake.Reply{Text: "thinking", ToolCalls: []fake.ToolCall{fake.Call("search", map[string]any{"query": "AI agents"}), fake.Call("now", nil)}}),
		fake.Text("Hello, wörld! This is streamed."),
	)
	for _, prompt := range []string{"text", "tool"} {
		t.Run(prompt, func(t *testing.T) {
			var chunks []llm.Chunk
			for c, err := range m.Stream(t.Context(), ask(prompt)) {
				require.NoError(t, err)
				chunks = append(chunks, c)
			}
			require.Greater(t, len(chunks), 2, "the reply comes in pieces")
			last := chunks[len(chunks)-1]
			require.NotNil(t, last.Done)

			var parts []llm.Chunk
			for _, c := range chunks[:len(chunks)-1] {
				assert.Nil(t, c.Done)
				parts = append(parts, c)
			}
			rebuilt, err := llm.Collect(func(yield func(llm.Chunk, error) bool) {
				for _, c := range parts {
					if !yield(c, nil) {
						return
					}
				}
			})
			require.NoError(t, err)
			assert.Equal(t, last.Done.Message, rebuilt.Message, "the deltas add up to the final response")
		})
	}

	_, err := llm.Collect(fake.New().Stream(t.Context(), ask("x")))
	require.ErrorIs(t, err, fake.ErrUnmatched)
}

func TestStreamStopsOnCancel(t *testing.T) {
	m := fake.New(fake.Text("a fairly long reply to split"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var err error
	n := 0
	for c, e := range m.Stream(ctx, ask("x")) {
		if e != nil {
			err = e
			break
		}
		n++
		if c.TextDelta != "" {
			cancel()
		}
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, n)
}

func TestResolvers(t *testing.T) {
	a, b, other := fake.New(fake.Text("a")), fake.New(fake.Text("b")), fake.New(fake.Text("other"))
	p := llm.NewProviders()
	p.Register(llm.AnyProvider, a.Factory())
	got, err := p.Resolve(t.Context(), llm.Config{Model: "anthropic/claude-3-5-haiku"})
	require.NoError(t, err)
	assert.Same(t, a, got)

	r := fake.Resolver{"openai/gpt-4o": a, "claude-3-5-haiku": b, "*": other}
	tests := []struct {
		model string
		want  *fake.Model
	}{
		{"openai/gpt-4o", a},
		{"gpt-4o", a},
		{"anthropic/claude-3-5-haiku", b},
		{"ollama/llama3.1", other},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, err := r.Resolve(t.Context(), llm.Config{Model: tt.model})
			require.NoError(t, err)
			assert.Same(t, tt.want, got)
		})
	}
	_, err = fake.Resolver{"gpt-4o": a}.Resolve(t.Context(), llm.Config{Model: "x/y"})
	require.ErrorContains(t, err, `fake: no fake model for "x/y"; add it to the fake.Resolver (it has gpt-4o)`)
	assert.False(t, errors.Is(err, fake.ErrUnmatched))
	_, err = fake.Resolver{"gpt-4o": a}.Factory()(t.Context(), llm.Config{Model: "x/y"})
	require.EqualError(t, err, `fake: no fake model matches; add it to the fake.Resolver (it has gpt-4o) or add a "*" entry`,
		"a factory leaves naming the model to the registry")
}

// TestTimesRule checks the rule of times shared with action/fake: 0 (the
// default) is unlimited and such a reply never counts as used up; a
// limited reply answers its times, then lets the next entry answer, and
// Reset restores it. A script cannot say times: 0 (see TestParseScriptErrors).
func TestTimesRule(t *testing.T) {
	m := fake.New(fake.Times(2, fake.Match("q", fake.Text("limited"))), fake.Times(0, fake.Match("q", fake.Text("unlimited"))))
	var got []string
	for range 5 {
		resp, err := m.Generate(t.Context(), ask("q"))
		require.NoError(t, err)
		got = append(got, resp.Text())
	}
	assert.Equal(t, []string{"limited", "limited", "unlimited", "unlimited", "unlimited"}, got)

	_, err := m.Generate(t.Context(), ask("other"))
	require.ErrorIs(t, err, fake.ErrUnmatched)
	assert.Contains(t, err.Error(), "1 of 2 replies have used up their times", "the unlimited reply is never used up")

	m.Reset()
	resp, err := m.Generate(t.Context(), ask("q"))
	require.NoError(t, err)
	assert.Equal(t, "limited", resp.Text())
}
