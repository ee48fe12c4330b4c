package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

const script = `
function_calling: true        # false: the model has no native tool calls (ReAct path)
replies:
  - match: "Follow-up router"
    times: 1
    text: followup
  - match: "(?s)Research.*AI"
    tool_calls:
      - {name: search, arguments: {query: AI agents}}
      - {id: fixed, name: lookup, arguments: '{"id": 7}'}
  - match: classify
    json: {category: billing, tags: [a, b], score: 0.5}
  - match: limit
    error: "rate limited"
    status: 429
  - match: counted
    text: yes
    usage: {input_tokens: 10, output_tokens: 2}
    finish_reason: length
    delay: 1ms
  - text: fallback
`

func TestParseScript(t *testing.T) {
	m, err := fake.Parse([]byte(script))
	require.NoError(t, err)
	assert.True(t, llm.SupportsToolCalls(m))

	tests := []struct {
		prompt  string
		text    string
		calls   []llm.ToolCall
		usage   *llm.Usage
		finish  llm.FinishReason
		wantErr string
	}{
		{prompt: "Follow-up router", text: "followup", finish: llm.FinishStop},
		{prompt: "Follow-up router", text: "fallback", finish: llm.FinishStop},
		{prompt: "Research\nAI", calls: []llm.ToolCall{
			{ID: "call_1", Name: "search", Arguments: json.RawMessage(`{"query":"AI agents"}`)},
			{ID: "fixed", Name: "lookup", Arguments: json.RawMessage(`{"id": 7}`)},
		}, finish: llm.FinishToolCalls},
		{prompt: "classify this", text: `{"category":"billing","score":0.5,"tags":["a","b"]}`, finish: llm.FinishStop},
		{prompt: "limit", wantErr: "rate limited"},
		{prompt: "counted", text: "yes", usage: &llm.Usage{InputTokens: 10, OutputTokens: 2, Requests: 1}, finish: llm.FinishLength},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			resp, err := m.Generate(t.Context(), ask(tt.prompt))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.True(t, llm.IsRetryable(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.text, resp.Text())
			assert.Equal(t, tt.calls, resp.Message.ToolCalls)
			assert.Equal(t, tt.finish, resp.FinishReason)
			if tt.usage != nil {
				assert.Equal(t, *tt.usage, resp.Usage)
			}
		})
	}
}

func TestParseScriptForms(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		prompt string
		fc     bool
		text   string
	}{
		{"a bare list of replies", "- text: hi\n", "x", true, "hi"},
		{"function calling off, YAML 1.1 boolean", "function_calling: no\nreplies:\n  - text: hi\n", "x", false, "hi"},
		{"anchors and aliases", "replies:\n  - &r {match: first, times: 1, text: aliased}\n  - *r\n", "first", true, "aliased"},
		{"block text", "replies:\n  - text: |\n      line one\n      line two\n", "x", true, "line one\nline two\n"},
		{"null text", "replies:\n  - text: null\n", "x", true, ""},
		{"delay in seconds", "replies:\n  - {text: hi, delay: 0.001}\n", "x", true, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := fake.Parse([]byte(tt.yaml))
			require.NoError(t, err)
			assert.Equal(t, tt.fc, m.Capabilities().ToolCalls)
			resp, err := m.Generate(t.Context(), ask(tt.prompt))
			require.NoError(t, err)
			assert.Equal(t, tt.text, resp.Text())
		})
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"syntax", "replies:\n  - text: a\n    b: c: d\n", "fake: yaml: line 3: mapping values are not allowed"},
		{"empty", "", "fake: line 1, column 1: the script is empty"},
		{"scalar root", "hello\n", "fake: line 1, column 1: want a mapping with replies"},
		{"unknown top key", "function_calling: true\nreplys: []\n", "fake: line 2, column 1: replys: unknown key; want function_calling or replies"},
		{"function_calling not bool", "function_calling: maybe\n", "fake: line 1, column 19: function_calling: want true or false"},
		{"replies not a list", "replies: {text: x}\n", "fake: line 1, column 10: replies: want a list of replies"},
		{"reply not a mapping", "replies:\n  - just text\n", "fake: line 2, column 5: replies[0]: want a mapping"},
		{"unknown reply key", "replies:\n  - text: a\n    tex: b\n", "fake: line 3, column 5: replies[0].tex: unknown key"},
		{"duplicate key", "replies:\n  - text: a\n    text: b\n", "fake: line 3, column 5: replies[0].text: duplicate key"},
		{"times not int", "replies:\n  - text: a\n    times: many\n", `fake: line 3, column 12: replies[0].times: want an integer, got "many"`},
		{"times zero", "replies:\n  - text: a\n    times: 0\n", "replies[0].times: must be a positive integer, got 0"},
		{"bad regexp", "replies:\n  - text: a\n  - match: \"(\"\n    text: b\n", "fake: line 3, column 5: replies[1].match: invalid RE2 expression"},
		{"text and json", "replies:\n  - text: a\n    json: {a: 1}\n", "fake: line 3, column 5: replies[0].json: a reply has either text or json"},
		{"error and tool calls", "replies:\n  - error: e\n    tool_calls: [{name: f}]\n", "fake: line 2, column 5: replies[0].error: a reply has either error or tool_calls"},
		{"tool call without name", "replies:\n  - tool_calls:\n      - arguments: {}\n", "fake: line 3, column 9: replies[0].tool_calls[0].name: missing tool name"},
		{"tool call unknown key", "replies:\n  - tool_calls:\n      - {name: f, args: {}}\n", "replies[0].tool_calls[0].args: unknown key"},
		{"text not scalar", "replies:\n  - text: [a]\n", "fake: line 2, column 11: replies[0].text: want a string"},
		{"usage unknown key", "replies:\n  - text: a\n    usage: {tokens: 1}\n", "replies[0].usage.tokens: unknown key"},
		{"usage negative", "replies:\n  - text: a\n    usage: {input_tokens: -1}\n", "replies[0].usage.input_tokens: must not be negative"},
		{"bad finish reason", "replies:\n  - text: a\n    finish_reason: tired\n", `replies[0].finish_reason: unknown finish reason "tired"`},
		{"bad delay", "replies:\n  - text: a\n    delay: soon\n", `replies[0].delay: want a duration`},
		{"json with non-string keys", "replies:\n  - json: {1: a}\n", "fake: line 2, column 5: replies[0].json: cannot encode as JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := fake.Parse([]byte(tt.yaml))
			require.Error(t, err)
			assert.Nil(t, m)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte(script), 0o600))
	m, err := fake.Load(good)
	require.NoError(t, err)
	resp, err := m.Generate(t.Context(), ask("anything"))
	require.NoError(t, err)
	assert.Equal(t, "fallback", resp.Text())

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("replies:\n  - text: a\n    times: 0\n"), 0o600))
	_, err = fake.Load(bad)
	var se *fake.ScriptError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, bad, se.File)
	assert.Equal(t, 3, se.Line)
	assert.Equal(t, bad+":3:12: replies[0].times: must be a positive integer, got 0", err.Error()[len("fake: "):])

	broken := filepath.Join(dir, "broken.yaml")
	require.NoError(t, os.WriteFile(broken, []byte("replies: [\n"), 0o600))
	_, err = fake.Load(broken)
	require.ErrorContains(t, err, "fake: "+broken+": yaml: line")

	_, err = fake.Load(filepath.Join(dir, "missing.yaml"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestScriptDelayIsParsed(t *testing.T) {
	m, err := fake.Parse([]byte("replies:\n  - {text: slow, delay: 1h}\n"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	_, err = m.Generate(ctx, ask("x"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
}
