package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

func TestMessageHelpers(t *testing.T) {
	tests := []struct {
		name string
		msg  llm.Message
		want llm.Message
	}{
		{"system", llm.System("be brief"), llm.Message{Role: llm.RoleSystem, Parts: []llm.Part{llm.TextPart("be brief")}}},
		{"user", llm.User("hi"), llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("hi")}}},
		{"assistant", llm.Assistant("hello"), llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("hello")}}},
		{"empty text has no parts", llm.Assistant(""), llm.Message{Role: llm.RoleAssistant}},
		{"tool result", llm.ToolResult("call_1", "search", "found"), llm.Message{Role: llm.RoleTool, Parts: []llm.Part{llm.TextPart("found")}, ToolCallID: "call_1", Name: "search"}},
		{
			"assistant tool calls", llm.AssistantToolCalls("", llm.ToolCall{ID: "c", Name: "f", Arguments: json.RawMessage(`{}`)}),
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "f", Arguments: json.RawMessage(`{}`)}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.msg)
		})
	}
}

func TestMessageText(t *testing.T) {
	tests := []struct {
		name  string
		parts []llm.Part
		want  string
	}{
		{"none", nil, ""},
		{"one", []llm.Part{llm.TextPart("a")}, "a"},
		{"kind defaults to text", []llm.Part{{Text: "a"}}, "a"},
		{"image only", []llm.Part{llm.ImageURLPart("https://x/y.png")}, ""},
		{"concatenated, images skipped", []llm.Part{llm.TextPart("a"), llm.ImagePart("image/png", []byte{1}), llm.TextPart("b")}, "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, llm.Message{Role: llm.RoleUser, Parts: tt.parts}.Text())
		})
	}
}

func TestRoleValid(t *testing.T) {
	for _, r := range []llm.Role{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool} {
		assert.True(t, r.Valid(), r)
	}
	assert.False(t, llm.Role("developer").Valid())
}

func TestMessageJSONRoundTrip(t *testing.T) {
	in := llm.Message{
		Role:      llm.RoleAssistant,
		Parts:     []llm.Part{llm.TextPart("x"), llm.ImagePart("image/png", []byte{1, 2})},
		ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "search", Arguments: json.RawMessage(`{"q":"a"}`)}},
	}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	var out llm.Message
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, in, out)
}

func TestResponseText(t *testing.T) {
	var nilResp *llm.Response
	assert.Equal(t, "", nilResp.Text())
	assert.Nil(t, nilResp.ToolCalls())
	r := &llm.Response{Message: llm.AssistantToolCalls("thinking", llm.ToolCall{ID: "a", Name: "f"})}
	assert.Equal(t, "thinking", r.Text())
	assert.Len(t, r.ToolCalls(), 1)
}

func TestUsage(t *testing.T) {
	var u llm.Usage
	assert.True(t, u.IsZero())
	u.Add(llm.Usage{InputTokens: 10, OutputTokens: 5, CachedInputTokens: 2, Requests: 1})
	u.Add(llm.Usage{InputTokens: 3, OutputTokens: 4, ReasoningTokens: 1, CacheCreationTokens: 7, Requests: 1})
	assert.Equal(t, llm.Usage{InputTokens: 13, OutputTokens: 9, CachedInputTokens: 2, CacheCreationTokens: 7, ReasoningTokens: 1, Requests: 2}, u)
	assert.Equal(t, int64(22), u.Total())
	assert.False(t, u.IsZero())
}
