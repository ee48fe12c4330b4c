// Package providers registers Troupe's real model providers: llm/openai for
// OpenAI and the OpenAI-compatible services CrewAI users name in model
// strings ("ollama/llama3.1", "deepseek/deepseek-chat", "groq/...",
// "openrouter/..."), and llm/anthropic for Anthropic.
//
// It is the one place that reads the process environment, and only when
// [Default] is given a nil env.
//
// It imports llm and the adapters only; it must not import flow or action.
package providers

import (
	"os"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/anthropic"
	"github.com/troupe-dev/troupe/llm/openai"
)

// A Compatible describes an OpenAI-compatible service.
type Compatible struct {
	// Name is the provider prefix of model strings ("deepseek").
	Name string
	// BaseURL is the service's default endpoint ("" requires one in the
	// definition or BaseURLVariable).
	BaseURL string
	// KeyVariable holds the API key ("" for keyless local servers).
	KeyVariable string
	// BaseURLVariable may override BaseURL.
	BaseURLVariable string
}

// CompatibleServices returns the OpenAI-compatible services [Default]
// registers.
func CompatibleServices() []Compatible {
	return []Compatible{
		{Name: "ollama", BaseURL: "http://localhost:11434/v1", BaseURLVariable: "OLLAMA_API_BASE"},
		{Name: "deepseek", BaseURL: "https://api.deepseek.com/v1", KeyVariable: "DEEPSEEK_API_KEY"},
		{Name: "openrouter", BaseURL: "https://openrouter.ai/api/v1", KeyVariable: "OPENROUTER_API_KEY"},
		{Name: "groq", BaseURL: "https://api.groq.com/openai/v1", KeyVariable: "GROQ_API_KEY"},
		{Name: "together", BaseURL: "https://api.together.xyz/v1", KeyVariable: "TOGETHER_API_KEY"},
		{Name: "together_ai", BaseURL: "https://api.together.xyz/v1", KeyVariable: "TOGETHER_API_KEY"},
		{Name: "mistral", BaseURL: "https://api.mistral.ai/v1", KeyVariable: "MISTRAL_API_KEY"},
		{Name: "fireworks_ai", BaseURL: "https://api.fireworks.ai/inference/v1", KeyVariable: "FIREWORKS_API_KEY"},
		{Name: "cerebras", BaseURL: "https://api.cerebras.ai/v1", KeyVariable: "CEREBRAS_API_KEY"},
		{Name: "xai", BaseURL: "https://api.x.ai/v1", KeyVariable: "XAI_API_KEY"},
		{Name: "perplexity", BaseURL: "https://api.perplexity.ai", KeyVariable: "PERPLEXITY_API_KEY"},
		{Name: "dashscope", BaseURL: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", KeyVariable: "DASHSCOPE_API_KEY"},
		{Name: "lm_studio", BaseURL: "http://localhost:1234/v1", BaseURLVariable: "LM_STUDIO_API_BASE"},
		{Name: "hosted_vllm", BaseURLVariable: "HOSTED_VLLM_API_BASE", KeyVariable: "HOSTED_VLLM_API_KEY"},
	}
}

// An Option changes the models [Default] builds.
type Option func(*settings)

type settings struct {
	call, idle time.Duration
}

// WithTimeouts sets the timeouts of every model (see openai.WithTimeouts):
// call bounds a non-streamed call and a stream until its first event, idle
// the silence between two events of a stream. Zero keeps the default
// ([llm.DefaultTimeout], [llm.DefaultStreamIdleTimeout]), a negative value
// removes the bound; a definition's timeout wins over call.
func WithTimeouts(call, idle time.Duration) Option {
	return func(s *settings) { s.call, s.idle = call, idle }
}

// Default returns a registry with openai, anthropic and the
// [CompatibleServices], reading keys and base URLs through env (os.Getenv
// when nil).
func Default(env func(string) string, opts ...Option) *llm.Providers {
	if env == nil {
		env = os.Getenv
	}
	var s settings
	for _, o := range opts {
		o(&s)
	}
	p := llm.NewProviders()
	p.Register(llm.ProviderOpenAI, openai.Factory(openai.WithEnv(env), openai.WithTimeouts(s.call, s.idle)))
	p.Register(llm.ProviderAnthropic, anthropic.Factory(anthropic.WithEnv(env), anthropic.WithTimeouts(s.call, s.idle)))
	for _, c := range CompatibleServices() {
		p.Register(c.Name, openai.Factory(compatibleOptions(c, env, s)...))
	}
	return p
}

func compatibleOptions(c Compatible, env func(string) string, s settings) []openai.Option {
	opts := []openai.Option{
		openai.WithEnv(env),
		openai.WithTimeouts(s.call, s.idle),
		openai.WithProvider(c.Name),
		openai.WithDefaultBaseURL(c.BaseURL),
	}
	if c.BaseURLVariable != "" {
		opts = append(opts, openai.WithBaseURLVariables(c.BaseURLVariable))
	} else {
		opts = append(opts, openai.WithBaseURLVariables())
	}
	if c.KeyVariable != "" {
		opts = append(opts, openai.WithKeyVariables(c.KeyVariable))
	} else {
		opts = append(opts, openai.WithKeyVariables(), openai.WithoutKey())
	}
	if c.BaseURL == "" {
		opts = append(opts, openai.WithoutKey()) // self-hosted: key optional
	}
	return opts
}

// DefaultModel returns the model named by TROUPE_MODEL, else MODEL (as
// CrewAI reads it), else "" (env is os.Getenv when nil).
func DefaultModel(env func(string) string) string {
	if env == nil {
		env = os.Getenv
	}
	for _, k := range [...]string{"TROUPE_MODEL", "MODEL"} {
		if v := strings.TrimSpace(env(k)); v != "" {
			return v
		}
	}
	return ""
}
