package anthropic_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/anthropic"
	"github.com/troupe-dev/troupe/llm/llmtest"
)

const testKey = "sk-ant-test-0123456789abcdefghijklmnop"

func newModel(t *testing.T, cfg llm.Config, opts ...anthropic.Option) (*anthropic.Model, *llmtest.AnthropicServer) {
	t.Helper()
	srv := llmtest.NewAnthropicServer(t)
	if cfg.Model == "" {
		cfg.Model = "anthropic/claude-sonnet-4-5"
	}
	cfg.BaseURL = srv.URL()
	cfg.APIKey = testKey
	opts = append([]anthropic.Option{anthropic.WithRetry(3, time.Millisecond, time.Second)}, opts...)
	m, err := anthropic.New(cfg, opts...)
	require.NoError(t, err)
	return m, srv
}

func TestConformance(t *testing.T) {
	llmtest.Run(t, llmtest.Harness{
		Name:         "anthropic",
		Retries:      true,
		Secret:       testKey,
		NoSchemaName: true,
		New: func(t *testing.T) (llm.LLM, llmtest.Server) {
			return newModel(t, llm.Config{})
		},
		WithTimeouts: func(t *testing.T, call, idle time.Duration) (llm.LLM, llmtest.Server) {
			return newModel(t, llm.Config{Timeout: call}, anthropic.WithTimeouts(0, idle))
		},
	})
}
