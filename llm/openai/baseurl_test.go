package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/openai"
)

// TestNotFoundHintsAtMissingV1 calls a loopback OpenAI-compatible server
// with and without /v1 in the base URL.
func TestNotFoundHintsAtMissingV1(t *testing.T) {
	tests := []struct {
		name     string
		trimV1   bool
		reply    llmtest.Reply // queued when the route exists
		stream   bool
		wantHint bool
	}{
		{"no /v1", true, llmtest.Reply{}, false, true},
		{"no /v1, streamed", true, llmtest.Reply{}, true, true},
		{"with /v1, model not found", false, llmtest.Reply{Status: 404, Error: "The model does not exist", Code: "model_not_found"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t)
			base := srv.URL()
			if tt.trimV1 {
				base = strings.TrimSuffix(base, "/v1")
			} else {
				srv.Push(tt.reply)
			}
			m, err := openai.New(llm.Config{Model: "ollama/llama3.1", BaseURL: base}, openai.WithoutKey(), openai.WithRetry(1, time.Millisecond, time.Millisecond))
			require.NoError(t, err)
			req := &llm.Request{Messages: []llm.Message{llm.User("hi")}}
			if tt.stream {
				_, err = llm.Collect(m.Stream(context.Background(), req))
			} else {
				_, err = m.Generate(context.Background(), req)
			}
			require.Error(t, err)
			ae, ok := errors.AsType[*llm.APIError](err)
			require.True(t, ok, "want *llm.APIError, got %T", err)
			assert.Equal(t, 404, ae.Status)
			hint := "the base URL " + base + " has no /v1; OpenAI-compatible servers usually serve under /v1 (try " + base + "/v1)"
			if tt.wantHint {
				assert.Contains(t, err.Error(), hint)
			} else {
				assert.NotContains(t, err.Error(), "/v1")
			}
		})
	}
}
