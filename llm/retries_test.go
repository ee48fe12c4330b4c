package llm_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/anthropic"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/openai"
)

// TestWithoutRetries checks that a 500 under llm.WithoutRetries fails after
// exactly one request for both HTTP providers, while the same script is
// retried to success without it.
func TestWithoutRetries(t *testing.T) {
	type server interface {
		llmtest.Server
		URL() string
	}
	cases := []struct {
		name string
		new  func(t *testing.T) (llm.LLM, server)
	}{
		{"openai", func(t *testing.T) (llm.LLM, server) {
			srv := llmtest.NewOpenAIServer(t)
			m, err := openai.New(llm.Config{Model: "openai/gpt-4o-mini", BaseURL: srv.URL(), APIKey: "k"},
				openai.WithRetry(3, time.Millisecond, time.Second))
			require.NoError(t, err)
			return m, srv
		}},
		{"anthropic", func(t *testing.T) (llm.LLM, server) {
			srv := llmtest.NewAnthropicServer(t)
			m, err := anthropic.New(llm.Config{Model: "anthropic/claude-sonnet-4-5", BaseURL: srv.URL(), APIKey: "k"},
				anthropic.WithRetry(3, time.Millisecond, time.Second))
			require.NoError(t, err)
			return m, srv
		}},
	}
	fail := llmtest.Reply{Status: http.StatusInternalServerError, Error: "boom", Code: "server_error"}
	for _, tc := range cases {
		t.Run(tc.name+"/off", func(t *testing.T) {
			m, srv := tc.new(t)
			srv.Push(fail, llmtest.Reply{Text: "ok"})
			_, err := m.Generate(llm.WithoutRetries(context.Background()), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
			require.Error(t, err)
			require.True(t, llm.IsRetryable(err), "the error stays typed for an engine's retry: %v", err)
			require.Len(t, srv.Received(), 1)
		})
		t.Run(tc.name+"/on", func(t *testing.T) {
			m, srv := tc.new(t)
			srv.Push(fail, llmtest.Reply{Text: "ok"})
			resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
			require.NoError(t, err)
			require.Equal(t, "ok", resp.Text())
			require.Len(t, srv.Received(), 2)
		})
	}
}
