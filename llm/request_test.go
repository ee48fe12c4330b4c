package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

func TestRequestValidate(t *testing.T) {
	call := llm.ToolCall{ID: "call_1", Name: "search", Arguments: json.RawMessage(`{}`)}
	tests := []struct {
		name    string
		req     *llm.Request
		wantErr string
	}{
		{"nil", nil, "nil"},
		{"no messages", &llm.Request{}, "no messages"},
		{"ok", &llm.Request{Messages: []llm.Message{llm.System("s"), llm.User("u")}}, ""},
		{"bad role", &llm.Request{Messages: []llm.Message{{Role: "developer"}}}, `messages[0]: unknown role "developer"`},
		{"tool calls on user", &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, ToolCalls: []llm.ToolCall{call}}}}, "tool calls in a user message"},
		{"call without name", &llm.Request{Messages: []llm.Message{llm.AssistantToolCalls("", llm.ToolCall{ID: "x"})}}, "messages[0].tool_calls[0]: no tool name"},
		{"tool result without id", &llm.Request{Messages: []llm.Message{llm.User("u"), llm.ToolResult("", "search", "r")}}, "without tool_call_id"},
		{"tool result answering nothing", &llm.Request{Messages: []llm.Message{llm.User("u"), llm.ToolResult("call_9", "search", "r")}}, `"call_9" answers no earlier`},
		{"tool round", &llm.Request{Messages: []llm.Message{llm.User("u"), llm.AssistantToolCalls("", call), llm.ToolResult("call_1", "search", "r")}}, ""},
		{"tool without name", &llm.Request{Messages: []llm.Message{llm.User("u")}, Tools: []llm.ToolSpec{{}}}, "tools[0]: no name"},
		{"duplicate tools", &llm.Request{Messages: []llm.Message{llm.User("u")}, Tools: []llm.ToolSpec{{Name: "a"}, {Name: "a"}}}, `tools[1]: duplicate tool name "a"`},
		{"required without tools", &llm.Request{Messages: []llm.Message{llm.User("u")}, ToolChoice: llm.ToolChoiceRequired}, `tool choice "required" without tools`},
		{"choice names a tool", &llm.Request{Messages: []llm.Message{llm.User("u")}, Tools: []llm.ToolSpec{{Name: "a"}}, ToolChoice: "a"}, ""},
		{"choice names no tool", &llm.Request{Messages: []llm.Message{llm.User("u")}, Tools: []llm.ToolSpec{{Name: "a"}}, ToolChoice: "b"}, `tool choice "b" names no tool`},
		{"negative max tokens", &llm.Request{Messages: []llm.Message{llm.User("u")}, MaxTokens: -1}, "max_tokens -1"},
		{"schema without schema", &llm.Request{Messages: []llm.Message{llm.User("u")}, ResponseSchema: &llm.ResponseSchema{Name: "x"}}, `"x" has no schema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "llm: invalid request: ")
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestRequestCloneIsDeep(t *testing.T) {
	temp, seed := 0.5, int64(7)
	orig := &llm.Request{
		Model:       "gpt-4o",
		Messages:    []llm.Message{llm.User("hi"), llm.AssistantToolCalls("", llm.ToolCall{ID: "c", Name: "f", Arguments: json.RawMessage(`{"a":1}`)})},
		Tools:       []llm.ToolSpec{{Name: "f"}},
		Temperature: &temp,
		Seed:        &seed,
		Stop:        []string{"\nObservation:"},
		Extra:       map[string]any{"reasoning_effort": "low", "list": []any{int64(1)}},
	}
	c := orig.Clone()
	require.Equal(t, orig, c)

	c.Messages[0].Parts[0].Text = "changed"
	c.Messages[1].ToolCalls[0].Arguments[2] = 'b'
	*c.Temperature = 1
	*c.Seed = 1
	c.Stop[0] = "x"
	c.Tools[0].Name = "g"
	c.Extra["list"].([]any)[0] = int64(2)

	assert.Equal(t, "hi", orig.Messages[0].Text())
	assert.JSONEq(t, `{"a":1}`, string(orig.Messages[1].ToolCalls[0].Arguments))
	assert.Equal(t, 0.5, *orig.Temperature)
	assert.Equal(t, int64(7), *orig.Seed)
	assert.Equal(t, "\nObservation:", orig.Stop[0])
	assert.Equal(t, "f", orig.Tools[0].Name)
	assert.Equal(t, int64(1), orig.Extra["list"].([]any)[0])

	var nilReq *llm.Request
	assert.Nil(t, nilReq.Clone())
}

func TestTruncateAtStop(t *testing.T) {
	tests := []struct {
		name string
		text string
		stop []string
		want string
		cut  bool
	}{
		{"no stops", "abc", nil, "abc", false},
		{"not found", "abc", []string{"x"}, "abc", false},
		{"earliest wins", "Action: a\nObservation: b\nFinal", []string{"Final", "\nObservation:"}, "Action: a", true},
		{"empty stop ignored", "abc", []string{""}, "abc", false},
		{"at start", "Observation: x", []string{"Observation:"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := llm.TruncateAtStop(tt.text, tt.stop)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.cut, cut)
		})
	}
}
