package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
)

func TestWireRequest(t *testing.T) {
	temp := 0.3
	m, srv := newModel(t, llm.Config{Temperature: &temp, Stop: []string{"END"}})
	srv.Push(llmtest.Reply{Text: "done"})
	call1 := llm.ToolCall{ID: "toolu_1", Name: "a", Arguments: json.RawMessage(`{"x":1}`)}
	call2 := llm.ToolCall{ID: "toolu_2", Name: "b", Arguments: json.RawMessage(`not json`)}
	_, err := m.Generate(context.Background(), &llm.Request{
		Messages: []llm.Message{
			llm.System("Be brief."),
			llm.User("go"),
			llm.AssistantToolCalls("", call1, call2),
			llm.ToolResult("toolu_1", "a", "one"),
			llm.ToolResult("toolu_2", "b", "two"),
		},
		Tools:      []llm.ToolSpec{{Name: "a"}, {Name: "b", Parameters: map[string]any{"type": "object", "required": []any{"y"}}}},
		ToolChoice: llm.ToolChoiceRequired,
	})
	require.NoError(t, err)
	rec := srv.Received()[0]
	// The SDK sends the key as x-api-key or, in v2, as a bearer token.
	assert.Contains(t, []string{testKey, "Bearer " + testKey},
		rec.Header.Get("X-Api-Key")+rec.Header.Get("Authorization"), "the key is sent")
	assert.NotEmpty(t, rec.Header.Get("Anthropic-Version"))
	assert.Equal(t, "claude-sonnet-4-5", rec.Body["model"])
	assert.Equal(t, int64(4096), rec.Body["max_tokens"], "the API requires max_tokens")
	assert.Equal(t, 0.3, rec.Body["temperature"])
	assert.Equal(t, []any{"END"}, rec.Body["stop_sequences"])
	assert.Equal(t, []any{map[string]any{"type": "text", "text": "Be brief."}}, rec.Body["system"])
	assert.Equal(t, map[string]any{"type": "any"}, rec.Body["tool_choice"])
	msgs := rec.Body["messages"].([]any)
	require.Len(t, msgs, 3, "user, assistant, one user turn with both tool results")
	results := msgs[2].(map[string]any)["content"].([]any)
	assert.Len(t, results, 2)
	uses := msgs[1].(map[string]any)["content"].([]any)
	assert.Equal(t, map[string]any{}, uses[1].(map[string]any)["input"], "invalid arguments are sent as {}")
	tools := rec.Body["tools"].([]any)
	assert.Equal(t, map[string]any{"type": "object", "properties": map[string]any{}}, tools[0].(map[string]any)["input_schema"])
	assert.Equal(t, []any{"y"}, tools[1].(map[string]any)["input_schema"].(map[string]any)["required"])
}

func TestCacheUsageNormalized(t *testing.T) {
	m, srv := newModel(t, llm.Config{})
	u := llm.Usage{InputTokens: 1000, CachedInputTokens: 700, CacheCreationTokens: 200, OutputTokens: 50}
	srv.Push(llmtest.Reply{Text: "ok", Usage: u})
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.NoError(t, err)
	u.Requests = 1
	assert.Equal(t, u, resp.Usage)
}
