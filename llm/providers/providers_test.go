package providers_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/anthropic"
	"github.com/troupe-dev/troupe/llm/openai"
	"github.com/troupe-dev/troupe/llm/providers"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaultResolves(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		cfg    llm.Config
		want   string // String() of the model
		errSub string
	}{
		{name: "bare model is openai", env: map[string]string{"OPENAI_API_KEY": "sk-x"}, cfg: llm.Config{Model: "gpt-4o-mini"}, want: "openai/gpt-4o-mini"},
		{name: "openai prefix", env: map[string]string{"OPENAI_API_KEY": "sk-x"}, cfg: llm.Config{Model: "openai/gpt-4o"}, want: "openai/gpt-4o"},
		{name: "claude alias", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, cfg: llm.Config{Model: "claude/claude-sonnet-4-5"}, want: "anthropic/claude-sonnet-4-5"},
		{name: "bare claude", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, cfg: llm.Config{Model: "claude-3-5-haiku-latest"}, want: "anthropic/claude-3-5-haiku-latest"},
		{name: "ollama needs no key", cfg: llm.Config{Model: "ollama/llama3.1"}, want: "ollama/llama3.1"},
		{name: "key from definition", cfg: llm.Config{Model: "gpt-4o", APIKey: "sk-def"}, want: "openai/gpt-4o"},
		{name: "local base url needs no key", cfg: llm.Config{Model: "gpt-4o", BaseURL: "http://127.0.0.1:8000/v1"}, want: "openai/gpt-4o"},
		{name: "local base url from env", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:8080/v1"}, cfg: llm.Config{Model: "gpt-4o"}, want: "openai/gpt-4o"},
		{name: "compatible service", env: map[string]string{"DEEPSEEK_API_KEY": "k"}, cfg: llm.Config{Model: "deepseek/deepseek-chat"}, want: "deepseek/deepseek-chat"},
		{name: "openai key missing", cfg: llm.Config{Model: "gpt-4o"}, errSub: "set OPENAI_API_KEY"},
		{name: "anthropic key missing", cfg: llm.Config{Model: "anthropic/claude-sonnet-4-5"}, errSub: "set ANTHROPIC_API_KEY"},
		{name: "groq key missing", cfg: llm.Config{Model: "groq/llama-3.3-70b"}, errSub: "set GROQ_API_KEY"},
		{name: "vllm needs a base url", cfg: llm.Config{Model: "hosted_vllm/qwen"}, errSub: "HOSTED_VLLM_API_BASE"},
		{name: "unknown provider", cfg: llm.Config{Model: "nowhere/x"}, errSub: `no provider "nowhere"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := providers.Default(envOf(tt.env)).Resolve(context.Background(), tt.cfg)
			if tt.errSub != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errSub)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.(interface{ String() string }).String())
		})
	}
}

func TestMissingKeyIsTyped(t *testing.T) {
	p := providers.Default(envOf(nil))
	_, err := p.Resolve(context.Background(), llm.Config{Model: "gpt-4o"})
	var ok *openai.MissingKeyError
	require.True(t, errors.As(err, &ok))
	assert.Equal(t, "OPENAI_API_KEY", ok.Variable)
	_, err = p.Resolve(context.Background(), llm.Config{Model: "claude-sonnet-4-5"})
	var ak *anthropic.MissingKeyError
	require.True(t, errors.As(err, &ak))
}

func TestDefaultModel(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TROUPE_MODEL": "anthropic/claude-sonnet-4-5", "MODEL": "gpt-4o"}, "anthropic/claude-sonnet-4-5"},
		{map[string]string{"MODEL": " gpt-4o "}, "gpt-4o"},
		{nil, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, providers.DefaultModel(envOf(tt.env)))
	}
}
