package openai_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/openai"
)

const testKey = "sk-test-0123456789abcdefghijklmnop"

// newModel returns a model talking to a fresh wire server.
func newModel(t *testing.T, cfg llm.Config, opts ...openai.Option) (*openai.Model, *llmtest.OpenAIServer) {
	t.Helper()
	srv := llmtest.NewOpenAIServer(t)
	if cfg.Model == "" {
		cfg.Model = "openai/gpt-4o-mini"
	}
	cfg.BaseURL = srv.URL()
	cfg.APIKey = testKey
	opts = append([]openai.Option{openai.WithRetry(3, time.Millisecond, time.Second)}, opts...)
	m, err := openai.New(cfg, opts...)
	require.NoError(t, err)
	return m, srv
}

func TestConformance(t *testing.T) {
	llmtest.Run(t, llmtest.Harness{
		Name:    "openai",
		Retries: true,
		Secret:  testKey,
		New: func(t *testing.T) (llm.LLM, llmtest.Server) {
			return newModel(t, llm.Config{})
		},
		WithTimeouts: func(t *testing.T, call, idle time.Duration) (llm.LLM, llmtest.Server) {
			return newModel(t, llm.Config{Timeout: call}, openai.WithTimeouts(0, idle))
		},
	})
}
