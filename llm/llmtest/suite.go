package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

// Run runs the conformance suite against the implementation h describes,
// each check as a subtest with a fresh model and server; the timeout checks
// run when h.WithTimeouts is set.
func Run(t *testing.T, h Harness) {
	t.Helper()
	require.NotNil(t, h.New, "llmtest: Harness.New is required")
	checks := []struct {
		name string
		run  func(t *testing.T, h Harness)
	}{
		{"Text", testText},
		{"ToolRoundTrip", testToolRoundTrip},
		{"ParallelToolCalls", testParallelToolCalls},
		{"StructuredOutput", testStructuredOutput},
		{"StreamText", testStreamText},
		{"StreamToolCalls", testStreamToolCalls},
		{"Error", testError},
		{"Retry", testRetry},
		{"CancelGenerate", testCancelGenerate},
		{"CancelStream", testCancelStream},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, h) })
	}
	if h.WithTimeouts != nil {
		t.Run("Timeouts", func(t *testing.T) { testTimeouts(t, h) })
	}
}

// weatherTool is the tool the suite declares.
var weatherTool = llm.ToolSpec{
	Name:        "get_weather",
	Description: "Get the current weather in a city.",
	Parameters: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string"}},
		"required":             []any{"city"},
		"additionalProperties": false,
	},
}

var timeTool = llm.ToolSpec{
	Name:        "get_time",
	Description: "Get the local time in a city.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string"}},
	},
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// only returns the single call the server received.
func only(t *testing.T, srv Server) Received {
	t.Helper()
	rec := srv.Received()
	require.Len(t, rec, 1, "calls received")
	require.NotNil(t, rec[0].Request)
	return rec[0]
}

// jsonEq compares two JSON data values by their encoding.
func jsonEq(t *testing.T, want, got any, msg string) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(w), string(g), msg)
}

func testText(t *testing.T, h Harness) {
	m, srv := h.New(t)
	usage := llm.Usage{InputTokens: 120, OutputTokens: 30, CachedInputTokens: 100, ReasoningTokens: 8}
	srv.Push(Reply{Text: "Hello, Ada.", Usage: usage})
	temp := 0.25
	resp, err := m.Generate(ctxFor(t), &llm.Request{
		Messages:    []llm.Message{llm.System("You are terse."), llm.User("Greet Ada.")},
		Temperature: &temp,
		MaxTokens:   64,
		Stop:        []string{"\nObservation:"},
	})
	require.NoError(t, err)
	assert.Equal(t, "Hello, Ada.", resp.Text())
	assert.Equal(t, llm.RoleAssistant, resp.Message.Role)
	assert.Empty(t, resp.ToolCalls())
	assert.Equal(t, llm.FinishStop, resp.FinishReason)
	usage.Requests = 1
	assert.Equal(t, usage, resp.Usage, "usage, normalized")

	rec := only(t, srv)
	assert.False(t, rec.Stream, "a Generate call is not streamed")
	req := rec.Request
	require.Len(t, req.Messages, 2)
	assert.Equal(t, llm.RoleSystem, req.Messages[0].Role)
	assert.Equal(t, "You are terse.", req.Messages[0].Text())
	assert.Equal(t, llm.RoleUser, req.Messages[1].Role)
	assert.Equal(t, "Greet Ada.", req.Messages[1].Text())
	require.NotNil(t, req.Temperature, "temperature sent")
	assert.InDelta(t, 0.25, *req.Temperature, 1e-9)
	assert.Equal(t, 64, req.MaxTokens)
	assert.Equal(t, []string{"\nObservation:"}, req.Stop)
	assert.Empty(t, req.Tools)
	assert.Nil(t, req.ResponseSchema)
}

func testToolRoundTrip(t *testing.T, h Harness) {
	m, srv := h.New(t)
	ctx := ctxFor(t)
	call := llm.ToolCall{ID: "call_w1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	srv.Push(Reply{ToolCalls: []llm.ToolCall{call}, Usage: llm.Usage{InputTokens: 50, OutputTokens: 12}})
	req := &llm.Request{
		Messages: []llm.Message{llm.User("What is the weather in Paris?")},
		Tools:    []llm.ToolSpec{weatherTool},
	}
	resp, err := m.Generate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, llm.FinishToolCalls, resp.FinishReason)
	require.Len(t, resp.ToolCalls(), 1)
	got := resp.ToolCalls()[0]
	assert.Equal(t, "call_w1", got.ID)
	assert.Equal(t, "get_weather", got.Name)
	assert.JSONEq(t, `{"city":"Paris"}`, string(got.Arguments))

	sent := only(t, srv).Request
	require.Len(t, sent.Tools, 1, "tools declared")
	assert.Equal(t, weatherTool.Name, sent.Tools[0].Name)
	assert.Equal(t, weatherTool.Description, sent.Tools[0].Description)
	jsonEq(t, weatherTool.Parameters, sent.Tools[0].Parameters, "tool parameters")

	srv.Push(Reply{Text: "It is sunny in Paris."})
	req.Messages = append(req.Messages, resp.Message, llm.ToolResult(got.ID, got.Name, "sunny, 24C"))
	resp, err = m.Generate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "It is sunny in Paris.", resp.Text())
	assert.Equal(t, llm.FinishStop, resp.FinishReason)

	rec := srv.Received()
	require.Len(t, rec, 2)
	msgs := rec[1].Request.Messages
	require.Len(t, msgs, 3, "user, assistant tool call, tool result")
	assert.Equal(t, llm.RoleAssistant, msgs[1].Role)
	require.Len(t, msgs[1].ToolCalls, 1, "the assistant's tool call is sent back")
	assert.Equal(t, "call_w1", msgs[1].ToolCalls[0].ID)
	assert.Equal(t, "get_weather", msgs[1].ToolCalls[0].Name)
	assert.JSONEq(t, `{"city":"Paris"}`, string(msgs[1].ToolCalls[0].Arguments))
	assert.Equal(t, llm.RoleTool, msgs[2].Role)
	assert.Equal(t, "call_w1", msgs[2].ToolCallID)
	assert.Equal(t, "sunny, 24C", msgs[2].Text())
}

func testParallelToolCalls(t *testing.T, h Harness) {
	m, srv := h.New(t)
	ctx := ctxFor(t)
	calls := []llm.ToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
		{ID: "call_b", Name: "get_time", Arguments: json.RawMessage(`{"city":"Lima"}`)},
	}
	srv.Push(Reply{Text: "Checking both.", ToolCalls: calls})
	req := &llm.Request{
		Messages: []llm.Message{llm.User("Weather in Oslo and time in Lima?")},
		Tools:    []llm.ToolSpec{weatherTool, timeTool},
	}
	resp, err := m.Generate(ctx, req)
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls(), 2)
	for i, c := range resp.ToolCalls() {
		assert.Equal(t, calls[i].ID, c.ID)
		assert.Equal(t, calls[i].Name, c.Name)
		assert.JSONEq(t, string(calls[i].Arguments), string(c.Arguments))
	}
	assert.Equal(t, llm.FinishToolCalls, resp.FinishReason)
	assert.Equal(t, "Checking both.", resp.Text(), "text alongside tool calls")
	names := []string{}
	for _, tl := range only(t, srv).Request.Tools {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"get_weather", "get_time"}, names)

	srv.Push(Reply{Text: "Cold in Oslo; 9am in Lima."})
	req.Messages = append(req.Messages, resp.Message,
		llm.ToolResult("call_a", "get_weather", "-3C"),
		llm.ToolResult("call_b", "get_time", "09:00"))
	resp, err = m.Generate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "Cold in Oslo; 9am in Lima.", resp.Text())
	var results []llm.Message
	for _, msg := range srv.Received()[1].Request.Messages {
		if msg.Role == llm.RoleTool {
			results = append(results, msg)
		}
	}
	require.Len(t, results, 2, "both tool results sent back")
	assert.Equal(t, "call_a", results[0].ToolCallID)
	assert.Equal(t, "-3C", results[0].Text())
	assert.Equal(t, "call_b", results[1].ToolCallID)
	assert.Equal(t, "09:00", results[1].Text())
}

func testStructuredOutput(t *testing.T, h Harness) {
	m, srv := h.New(t)
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"category": map[string]any{"type": "string", "enum": []any{"billing", "bug"}},
			"urgent":   map[string]any{"type": "boolean"},
		},
		"required":             []any{"category", "urgent"},
		"additionalProperties": false,
	}
	srv.Push(Reply{Text: `{"category":"billing","urgent":true}`})
	resp, err := m.Generate(ctxFor(t), &llm.Request{
		Messages:       []llm.Message{llm.User("Classify: I was charged twice!")},
		ResponseSchema: &llm.ResponseSchema{Name: "ticket", Schema: schema, Strict: true},
	})
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(resp.Text()), &out), "reply is JSON")
	assert.Equal(t, map[string]any{"category": "billing", "urgent": true}, out)

	rs := only(t, srv).Request.ResponseSchema
	require.NotNil(t, rs, "output schema requested")
	jsonEq(t, schema, rs.Schema, "output schema")
	if !h.NoSchemaName {
		assert.Equal(t, "ticket", rs.Name)
	}
}

// collect drains a stream, checking that Done comes last and alone.
func collect(t *testing.T, seq func(func(llm.Chunk, error) bool), onChunk func(llm.Chunk)) (chunks []llm.Chunk, done *llm.Response, err error) {
	t.Helper()
	for c, e := range seq {
		if e != nil {
			return chunks, done, e
		}
		require.Nil(t, done, "no chunk after the Done chunk")
		chunks = append(chunks, c)
		if onChunk != nil {
			onChunk(c)
		}
		done = c.Done
	}
	return chunks, done, nil
}

func testStreamText(t *testing.T, h Harness) {
	m, srv := h.New(t)
	gate := make(chan struct{})
	usage := llm.Usage{InputTokens: 40, OutputTokens: 9}
	srv.Push(Reply{Text: "Streaming works, one piece at a time.", Pieces: 4, Gate: gate, Usage: usage})
	opened := false
	chunks, done, err := collect(t, m.Stream(ctxFor(t), &llm.Request{Messages: []llm.Message{llm.User("Stream please.")}}),
		func(c llm.Chunk) {
			if c.TextDelta != "" && !opened {
				opened = true
				close(gate) // the server holds the rest until the first piece is seen
			}
		})
	if !opened {
		close(gate)
	}
	require.NoError(t, err)
	require.NotNil(t, done, "a Done chunk ends the stream")
	var text strings.Builder
	deltas := 0
	for _, c := range chunks {
		if c.TextDelta != "" {
			deltas++
			text.WriteString(c.TextDelta)
		}
	}
	assert.Greater(t, deltas, 1, "text arrives in pieces")
	assert.Equal(t, "Streaming works, one piece at a time.", text.String())
	assert.Equal(t, text.String(), done.Text())
	assert.Equal(t, llm.FinishStop, done.FinishReason)
	usage.Requests = 1
	assert.Equal(t, usage, done.Usage, "usage of a streamed reply")

	rec := only(t, srv)
	assert.True(t, rec.Stream, "the stream flag is sent")
	assert.False(t, rec.GateTimedOut, "the first piece reached the caller while the reply was still open")
}

func testStreamToolCalls(t *testing.T, h Harness) {
	m, srv := h.New(t)
	calls := []llm.ToolCall{
		{ID: "call_s1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)},
		{ID: "call_s2", Name: "get_time", Arguments: json.RawMessage(`{"city":"Kyoto"}`)},
	}
	srv.Push(Reply{ToolCalls: calls, Pieces: 3})
	req := &llm.Request{Messages: []llm.Message{llm.User("Rome weather, Kyoto time.")}, Tools: []llm.ToolSpec{weatherTool, timeTool}}
	chunks, done, err := collect(t, m.Stream(ctxFor(t), req), nil)
	require.NoError(t, err)
	require.NotNil(t, done)
	deltas := 0
	for _, c := range chunks {
		if c.ToolCallDelta != nil {
			deltas++
		}
	}
	assert.GreaterOrEqual(t, deltas, 2, "tool calls arrive as deltas")
	resp, err := llm.Collect(func(yield func(llm.Chunk, error) bool) {
		for _, c := range chunks {
			if c.Done == nil && !yield(c, nil) {
				return
			}
		}
	})
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls(), 2, "deltas assemble into the calls")
	require.Len(t, done.ToolCalls(), 2, "the Done response carries the calls")
	for i := range calls {
		for _, got := range []llm.ToolCall{resp.ToolCalls()[i], done.ToolCalls()[i]} {
			assert.Equal(t, calls[i].ID, got.ID)
			assert.Equal(t, calls[i].Name, got.Name)
			assert.JSONEq(t, string(calls[i].Arguments), string(got.Arguments))
		}
	}
	assert.Equal(t, llm.FinishToolCalls, done.FinishReason)
	rec := only(t, srv)
	assert.True(t, rec.Stream)
	assert.Len(t, rec.Request.Tools, 2)
}

func testError(t *testing.T, h Harness) {
	m, srv := h.New(t)
	srv.Push(Reply{Status: 400, Error: "messages: the prompt is malformed", Code: "invalid_request_error"})
	_, err := m.Generate(ctxFor(t), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.Error(t, err)
	ae, ok := errors.AsType[*llm.APIError](err)
	require.True(t, ok, "want *llm.APIError, got %T: %v", err, err)
	assert.Equal(t, 400, ae.Status)
	assert.NotEmpty(t, ae.Provider)
	assert.Contains(t, err.Error(), "the prompt is malformed", "the provider's message")
	assert.Contains(t, err.Error(), "400")
	assert.False(t, llm.IsRetryable(err))
	assert.Len(t, srv.Received(), 1, "a 400 is not retried")
	if h.Secret != "" {
		assert.NotContains(t, err.Error(), h.Secret, "the API key never appears in errors")
		assert.NotContains(t, strings.ToLower(err.Error()), strings.ToLower(h.Secret))
	}
}

func testRetry(t *testing.T, h Harness) {
	m, srv := h.New(t)
	if !h.Retries {
		srv.Push(Reply{Status: 429, Error: "rate limited"})
		_, err := m.Generate(ctxFor(t), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
		require.Error(t, err)
		assert.True(t, llm.IsRetryable(err), "a 429 is reported as retryable")
		return
	}
	srv.Push(
		Reply{Status: 429, Error: "rate limited", Code: "rate_limit_exceeded", Header: map[string]string{"Retry-After-Ms": "60"}},
		Reply{Status: 503, Error: "overloaded", Header: map[string]string{"Retry-After": "0"}},
		Reply{Text: "third time lucky"},
	)
	start := time.Now()
	resp, err := m.Generate(ctxFor(t), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.NoError(t, err)
	assert.Equal(t, "third time lucky", resp.Text())
	assert.Len(t, srv.Received(), 3, "429 and 503 are retried")
	assert.GreaterOrEqual(t, time.Since(start), 55*time.Millisecond, "Retry-After is honoured")

	srv.Push(Reply{Status: 500, Error: "boom"}, Reply{Status: 500, Error: "boom"}, Reply{Status: 500, Error: "boom"},
		Reply{Text: "never reached"})
	_, err = m.Generate(ctxFor(t), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.Error(t, err)
	ae, ok := errors.AsType[*llm.APIError](err)
	require.True(t, ok, "want *llm.APIError, got %T", err)
	assert.Equal(t, 500, ae.Status)
	assert.Len(t, srv.Received(), 6, "attempts are bounded (3 by default)")
}

func testCancelGenerate(t *testing.T, h Harness) {
	m, srv := h.New(t)
	srv.Push(Reply{Text: "too late", Hang: true})
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second, "the call ends with its context")
	assert.False(t, llm.IsRetryable(err))
}

func testCancelStream(t *testing.T, h Harness) {
	m, srv := h.New(t)
	srv.Push(Reply{Text: "first piece, then silence", Pieces: 3, Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Cancel on the first piece, or after a while for models that hold
	// everything until the end.
	timer := time.AfterFunc(300*time.Millisecond, cancel)
	defer timer.Stop()
	var got []string
	var final error
	start := time.Now()
	for c, err := range m.Stream(ctx, &llm.Request{Messages: []llm.Message{llm.User("hi")}}) {
		if err != nil {
			final = err
			break
		}
		if c.TextDelta != "" {
			got = append(got, c.TextDelta)
			cancel()
		}
	}
	require.Error(t, final, "a cancelled stream ends with an error")
	assert.ErrorIs(t, final, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second)

	// Stopping the iteration early is allowed and ends the call.
	srv.Push(Reply{Text: "abcdefghijkl", Pieces: 4})
	n := 0
	for _, err := range m.Stream(ctxFor(t), &llm.Request{Messages: []llm.Message{llm.User("hi")}}) {
		require.NoError(t, err)
		n++
		break
	}
	assert.Equal(t, 1, n)
}
