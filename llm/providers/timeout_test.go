package providers_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/providers"
)

func TestDefaultWithTimeouts(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	env := map[string]string{"OPENAI_API_KEY": "sk-test-abcdefghijkl", "OPENAI_BASE_URL": srv.URL()}
	p := providers.Default(envOf(env), providers.WithTimeouts(50*time.Millisecond, 0))
	for _, model := range []string{"gpt-4o", "together/llama"} {
		cfg := llm.Config{Model: model, BaseURL: srv.URL(), APIKey: "k"}
		m, err := p.Resolve(context.Background(), cfg)
		require.NoError(t, err)
		srv.Push(llmtest.Reply{Silent: true})
		_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
		te, ok := errors.AsType[*llm.TimeoutError](err)
		require.True(t, ok, "%s: want *llm.TimeoutError, got %v", model, err)
		assert.Equal(t, 50*time.Millisecond, te.After)
	}
}
