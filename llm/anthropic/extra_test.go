package anthropic_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/anthropic"
	"github.com/troupe-dev/troupe/llm/llmtest"
)

func TestMaxRetriesSetting(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t)
	cfg := llm.Config{Model: "claude-sonnet-4-5", BaseURL: srv.URL(), APIKey: testKey, Extra: map[string]any{"max_retries": "0"}}
	m, err := anthropic.New(cfg, anthropic.WithRetry(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	srv.Push(llmtest.Reply{Status: 529, Error: "overloaded"}, llmtest.Reply{Text: "not reached"})
	_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.Error(t, err)
	assert.Len(t, srv.Received(), 1, `max_retries "0" means one attempt`)

	cfg.Extra["max_retries"] = 2.5
	_, err = anthropic.New(cfg)
	assert.ErrorContains(t, err, "max_retries: must be a whole number, got number 2.5")
}
