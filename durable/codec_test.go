package durable_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/durable"
	"github.com/troupe-dev/troupe/llm"
)

func TestValueRoundTripKeepsTypes(t *testing.T) {
	c := &durable.Codec{}
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"integer", int64(2), int64(2)},
		{"float with no fraction", 2.0, 2.0},
		{"go int", 7, int64(7)},
		{"nested", map[string]any{"b": []any{int64(1), 1.5, "x", nil, true}, "a": map[string]any{"n": int64(-3)}},
			map[string]any{"b": []any{int64(1), 1.5, "x", nil, true}, "a": map[string]any{"n": int64(-3)}}},
		{"string list", []string{"a", "b"}, []any{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := c.EncodeValue("r/m#1", "result", tt.in)
			require.NoError(t, err)
			got, err := durable.DecodeValue(b)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEqualValuesEncodeEqually(t *testing.T) {
	c := &durable.Codec{}
	a, err := c.EncodeValue("k", "result", map[string]any{"x": int64(1), "y": int64(2), "z": int64(3)})
	require.NoError(t, err)
	b, err := c.EncodeValue("k", "result", map[string]any{"z": int64(3), "y": int64(2), "x": int64(1)})
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
}

func TestModelRoundTrip(t *testing.T) {
	c := &durable.Codec{}
	temp := 0.5
	req := &llm.Request{
		Messages: []llm.Message{
			llm.System("Be brief."), llm.User("Find A."),
			llm.AssistantToolCalls("", llm.ToolCall{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{"id": "A", "n": 2}`)},
				llm.ToolCall{ID: "call_2", Name: "lookup", Arguments: json.RawMessage(`{not json`)}),
			llm.ToolResult("call_1", "lookup", "found"), llm.ToolResult("call_2", "lookup", "Error: not JSON"),
		},
		Tools: []llm.ToolSpec{{Name: "lookup", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"n": map[string]any{"type": "integer", "minimum": int64(1)}}}}},
		ResponseSchema: &llm.ResponseSchema{Name: "answer", Schema: map[string]any{"type": "object", "maxProperties": int64(3)}},
		Temperature:    &temp,
		Extra:          map[string]any{"reasoning_effort": "low", "n": int64(1)},
	}
	b, err := c.EncodeRequest("r/m#1/llm#2", durable.ModelRequest{Model: "openai/gpt-4o-mini", Request: req})
	require.NoError(t, err)
	got, err := durable.DecodeRequest(b)
	require.NoError(t, err)
	assert.Equal(t, "openai/gpt-4o-mini", got.Model)
	assert.Equal(t, req, got.Request)
	again, err := c.EncodeRequest("r/m#1/llm#2", got)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again), "a decoded request encodes to the same bytes")

	resp := &llm.Response{Message: llm.AssistantToolCalls("Looking.", llm.ToolCall{ID: "c", Name: "lookup", Arguments: json.RawMessage(`{"b":1,"a":2}`)}),
		FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 10, OutputTokens: 3, Requests: 1}, Model: "gpt-4o-mini", ID: "resp_1"}
	b, err = c.EncodeResponse("r/m#1/llm#2", resp)
	require.NoError(t, err)
	gotResp, err := durable.DecodeResponse(b)
	require.NoError(t, err)
	assert.Equal(t, resp, gotResp)
	assert.Equal(t, `{"b":1,"a":2}`, string(gotResp.Message.ToolCalls[0].Arguments), "arguments keep the model's key order")
}

func TestCodeRoundTrip(t *testing.T) {
	c := &durable.Codec{}
	req := durable.CodeRequest{Args: map[string]any{"row": "a", "n": int64(1)}, Trigger: 2.5, State: map[string]any{"count": int64(3)}}
	b, err := c.EncodeCodeRequest("r/m#1", req)
	require.NoError(t, err)
	gotReq, err := durable.DecodeCodeRequest(b)
	require.NoError(t, err)
	assert.Equal(t, req, gotReq)

	res := durable.CodeResult{Value: []any{int64(1), 1.0}, Patch: durable.Patch{Set: map[string]any{"count": int64(4)}, Delete: []string{"tmp"}}}
	b, err = c.EncodeCodeResult("r/m#1", res)
	require.NoError(t, err)
	gotRes, err := durable.DecodeCodeResult(b)
	require.NoError(t, err)
	assert.Equal(t, res, gotRes)
}

func TestDiffAndApply(t *testing.T) {
	before := map[string]any{"id": "r", "count": int64(1), "score": int64(2), "tmp": "x", "list": []any{"a"}}
	after := map[string]any{"id": "r", "count": int64(2), "score": 2.0, "list": []any{"a"}, "new": true}
	p, err := durable.Diff(before, after)
	require.NoError(t, err)
	assert.Equal(t, durable.Patch{Set: map[string]any{"count": int64(2), "score": 2.0, "new": true}, Delete: []string{"tmp"}}, p)
	p.Apply(before)
	assert.Equal(t, after, before)
	empty, err := durable.Diff(after, after)
	require.NoError(t, err)
	assert.True(t, empty.Empty())
}

func TestPayloadSizeLimits(t *testing.T) {
	var logs bytes.Buffer
	c := &durable.Codec{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	_, err := c.EncodeValue("r/m#1", "result", strings.Repeat("x", durable.WarnSize+10))
	require.NoError(t, err)
	assert.Contains(t, logs.String(), "large effect payload")
	assert.Contains(t, logs.String(), "effect=r/m#1")

	_, err = c.EncodeResponse("r/m#1/llm#3", &llm.Response{Message: llm.Assistant(strings.Repeat("y", durable.MaxSize))})
	var tl *durable.PayloadTooLargeError
	require.True(t, errors.As(err, &tl), "got %v", err)
	assert.Equal(t, "r/m#1/llm#3", tl.Key)
	assert.Equal(t, durable.MaxSize, tl.Limit)
	assert.Contains(t, err.Error(), "effect r/m#1/llm#3")
	assert.Less(t, durable.MaxSize, 2<<20, "the limit stays well below 2 MiB")
}
