package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/llm"
)

func TestParseModel(t *testing.T) {
	tests := []struct {
		in, provider, model string
	}{
		{"openai/gpt-4o", "openai", "gpt-4o"},
		{"gpt-4o-mini", "openai", "gpt-4o-mini"},
		{"o3-mini", "openai", "o3-mini"},
		{"ollama/llama3.1", "ollama", "llama3.1"},
		{"ollama/llama3.1:8b", "ollama", "llama3.1:8b"},
		{"ollama_chat/qwen2.5", "ollama", "qwen2.5"},
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"},
		{"claude/claude-3-5-haiku", "anthropic", "claude-3-5-haiku"},
		{"claude-3-5-sonnet", "anthropic", "claude-3-5-sonnet"},
		{"Claude-3-Opus", "anthropic", "Claude-3-Opus"},
		{"gemini-2.0-flash", "gemini", "gemini-2.0-flash"},
		{"google/gemini-1.5-pro", "gemini", "gemini-1.5-pro"},
		{"azure_openai/my-deployment", "azure", "my-deployment"},
		{"aws/anthropic.claude-3", "bedrock", "anthropic.claude-3"},
		{"anthropic.claude-3-haiku-20240307-v1:0", "bedrock", "anthropic.claude-3-haiku-20240307-v1:0"},
		{"us.meta.llama3-2-90b-instruct-v1:0", "bedrock", "us.meta.llama3-2-90b-instruct-v1:0"},
		{"OpenAI/GPT-4o", "openai", "GPT-4o"},
		{"openrouter/meta-llama/llama-3-70b", "openrouter", "meta-llama/llama-3-70b"},
		{"groq/llama-3.1-70b", "groq", "llama-3.1-70b"},
		{"llama3.1", "openai", "llama3.1"},
		{" openai/gpt-4o ", "openai", "gpt-4o"},
		{"/gpt-4o", "openai", "gpt-4o"},
		{"openai/", "openai", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, m := llm.ParseModel(tt.in)
			assert.Equal(t, tt.provider, p, "provider")
			assert.Equal(t, tt.model, m, "model")
		})
	}
}

func TestConfigProviderModel(t *testing.T) {
	tests := []struct {
		name            string
		cfg             llm.Config
		provider, model string
	}{
		{"inferred", llm.Config{Model: "gpt-4o"}, "openai", "gpt-4o"},
		{"prefixed", llm.Config{Model: "anthropic/claude-3-5-haiku"}, "anthropic", "claude-3-5-haiku"},
		{"explicit provider", llm.Config{Model: "llama3.1", Provider: "Ollama"}, "ollama", "llama3.1"},
		{"explicit provider strips its prefix", llm.Config{Model: "openai/gpt-4o", Provider: "openai"}, "openai", "gpt-4o"},
		{"explicit provider alias strips its prefix", llm.Config{Model: "claude/claude-3", Provider: "anthropic"}, "anthropic", "claude-3"},
		{"explicit provider keeps other slashes", llm.Config{Model: "meta-llama/llama-3", Provider: "openrouter"}, "openrouter", "meta-llama/llama-3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, m := tt.cfg.ProviderModel()
			assert.Equal(t, tt.provider, p)
			assert.Equal(t, tt.model, m)
		})
	}
}
