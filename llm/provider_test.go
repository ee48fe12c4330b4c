package llm_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

// named is an LLM that remembers the config it was built from.
type named struct {
	stub
	cfg llm.Config
}

func factory(ctx context.Context, cfg llm.Config) (llm.LLM, error) {
	return &named{cfg: cfg}, nil
}

func TestProvidersResolve(t *testing.T) {
	p := llm.NewProviders()
	p.Register("openai", factory)
	p.Register("Claude", factory) // registers "anthropic"
	assert.Equal(t, []string{"anthropic", "openai"}, p.Names())

	tests := []struct {
		model, provider, name string
	}{
		{"gpt-4o-mini", "openai", "gpt-4o-mini"},
		{"openai/gpt-4o", "openai", "gpt-4o"},
		{"anthropic/claude-3-5-haiku", "anthropic", "claude-3-5-haiku"},
		{"claude-3-5-sonnet", "anthropic", "claude-3-5-sonnet"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			m, err := p.Resolve(t.Context(), llm.Config{Model: tt.model})
			require.NoError(t, err)
			cfg := m.(*named).cfg
			assert.Equal(t, tt.provider, cfg.Provider, "the factory sees the resolved provider")
			_, name := cfg.ProviderModel()
			assert.Equal(t, tt.name, name)
			assert.Equal(t, tt.model, cfg.Model)
		})
	}
}

func TestProvidersNoProvider(t *testing.T) {
	p := llm.NewProviders()
	p.Register("openai", factory)
	_, err := p.Resolve(t.Context(), llm.Config{Model: "x/y"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `llm: no provider "x" registered for model "x/y"; `)
	assert.Contains(t, err.Error(), `Providers.Register("x", factory)`)
	assert.Contains(t, err.Error(), "registered: openai")
	var npe *llm.NoProviderError
	require.True(t, errors.As(err, &npe))
	assert.Equal(t, "x", npe.Provider)

	_, err = llm.NewProviders().Resolve(t.Context(), llm.Config{Model: "ollama/llama3.1"})
	assert.ErrorContains(t, err, "no providers are registered")
}

func TestProvidersFallbackAndRemoval(t *testing.T) {
	p := llm.NewProviders()
	p.Register(llm.AnyProvider, factory)
	m, err := p.Resolve(t.Context(), llm.Config{Model: "groq/llama-3.1"})
	require.NoError(t, err)
	assert.Equal(t, "groq", m.(*named).cfg.Provider)

	p.Register(llm.AnyProvider, nil)
	_, err = p.Resolve(t.Context(), llm.Config{Model: "groq/llama-3.1"})
	assert.ErrorContains(t, err, `no provider "groq"`)
}

func TestProvidersResolveErrors(t *testing.T) {
	p := llm.NewProviders()
	boom := errors.New("openai: missing API key")
	p.Register("openai", func(context.Context, llm.Config) (llm.LLM, error) { return nil, boom })
	p.Register("bad", func(context.Context, llm.Config) (llm.LLM, error) { return nil, nil })

	_, err := p.Resolve(t.Context(), llm.Config{Model: "gpt-4o"})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, `llm: model "gpt-4o": openai: missing API key`, err.Error())

	_, err = p.Resolve(t.Context(), llm.Config{Model: "bad/x"})
	assert.ErrorContains(t, err, "returned no LLM")

	bad := &llm.ConfigError{Key: "max_retries", Msg: "must be a whole number"}
	p.Register("cfg", func(context.Context, llm.Config) (llm.LLM, error) { return nil, bad })
	_, err = p.Resolve(t.Context(), llm.Config{Model: "cfg/x"})
	assert.EqualError(t, err, `llm: model "cfg/x": max_retries: must be a whole number`, "a ConfigError names the model, without a second llm: prefix")
	assert.Empty(t, bad.Model, "the factory's error is not changed")

	_, err = p.Resolve(t.Context(), llm.Config{})
	var ce *llm.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "model", ce.Key)
}

func TestProvidersConcurrentUse(t *testing.T) {
	p := llm.NewProviders()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i%2 == 0 {
				p.Register("openai", factory)
			}
			_, _ = p.Resolve(context.Background(), llm.Config{Model: "gpt-4o"})
			_ = p.Names()
		})
	}
	wg.Wait()
	m, err := p.Resolve(t.Context(), llm.Config{Model: "gpt-4o"})
	require.NoError(t, err)
	assert.NotNil(t, m)
}

func TestProvidersZeroValue(t *testing.T) {
	var p llm.Providers
	_, err := p.Resolve(t.Context(), llm.Config{Model: "gpt-4o"})
	require.ErrorContains(t, err, "no providers are registered")
	p.Register("openai", factory)
	_, err = p.Resolve(t.Context(), llm.Config{Model: "gpt-4o"})
	require.NoError(t, err)
}

func TestFactoryIsAResolver(t *testing.T) {
	var r llm.Resolver = llm.Factory(factory)
	m, err := r.Resolve(t.Context(), llm.Config{Model: "a"})
	require.NoError(t, err)
	assert.Equal(t, "a", m.(*named).cfg.Model)
}
