package llmtest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
)

// TestRespondAnswersFromTheRequest checks that a server given a Respond
// function answers each call with its reply to that call, ignores the
// queue, and records the call with its header; Respond(nil) returns to
// the queue.
func TestRespondAnswersFromTheRequest(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	srv.Push(llmtest.Reply{Text: "queued"})
	srv.Respond(func(r llmtest.Received) llmtest.Reply {
		return llmtest.Reply{Text: "echo " + r.Request.Messages[0].Text() + " " + r.Header.Get("X-Key")}
	})
	post := func(text, key string) string {
		t.Helper()
		body, err := json.Marshal(map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": text}}})
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-Key", key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var out struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Len(t, out.Choices, 1)
		return out.Choices[0].Message.Content
	}
	for _, tc := range []struct{ text, key, want string }{
		{"a", "k1", "echo a k1"},
		{"b", "k2", "echo b k2"},
	} {
		assert.Equal(t, tc.want, post(tc.text, tc.key))
	}
	got := srv.Received()
	require.Len(t, got, 2)
	assert.Equal(t, "k2", got[1].Header.Get("X-Key"))
	assert.Equal(t, llm.RoleUser, got[1].Request.Messages[0].Role)

	srv.Respond(nil)
	assert.Equal(t, "queued", post("c", "k3"))
}
