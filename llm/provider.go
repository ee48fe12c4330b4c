package llm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// AnyProvider registered with [Providers.Register] answers for every provider
// that has no factory of its own (useful to route every model to a fake).
const AnyProvider = "*"

// A Factory builds an LLM from a configuration. cfg.Provider is already set
// to the resolved provider; [Config.ProviderModel] gives the model name.
// Its errors need not name the model: [Providers.Resolve] does.
type Factory func(ctx context.Context, cfg Config) (LLM, error)

// Resolve implements [Resolver] by calling f.
func (f Factory) Resolve(ctx context.Context, cfg Config) (LLM, error) { return f(ctx, cfg) }

// A Resolver turns a configuration into an LLM.
type Resolver interface {
	Resolve(ctx context.Context, cfg Config) (LLM, error)
}

// Providers is a registry of factories by provider name, created with
// [NewProviders] (the zero value is an empty registry too). It is safe for
// concurrent use.
type Providers struct {
	mu        sync.RWMutex
	factories map[string]Factory
}

// NewProviders returns an empty registry.
func NewProviders() *Providers {
	return &Providers{factories: make(map[string]Factory)}
}

// Register makes f build the LLMs of provider name (normalized, so "claude"
// registers "anthropic"), replacing any earlier factory; a nil f removes it.
// The name [AnyProvider] registers a fallback for every other provider.
func (p *Providers) Register(name string, f Factory) {
	if name != AnyProvider {
		name = NormalizeProvider(name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if f == nil {
		delete(p.factories, name)
		return
	}
	if p.factories == nil {
		p.factories = make(map[string]Factory)
	}
	p.factories[name] = f
}

// Names returns the registered provider names, sorted.
func (p *Providers) Names() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	names := make([]string, 0, len(p.factories))
	for n := range p.factories {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Resolve builds the LLM for cfg with the factory of its provider, or the
// [AnyProvider] fallback. A missing factory is reported as [*NoProviderError].
// A factory's error is returned naming the model once: a [*ConfigError] gets
// its Model set, any other error is wrapped as `llm: model "...": ...`.
func (p *Providers) Resolve(ctx context.Context, cfg Config) (LLM, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, &ConfigError{Key: "model", Msg: `no model configured; set one such as "openai/gpt-4o-mini"`}
	}
	provider, _ := cfg.ProviderModel()
	p.mu.RLock()
	f, ok := p.factories[provider]
	if !ok {
		f, ok = p.factories[AnyProvider]
	}
	p.mu.RUnlock()
	if !ok {
		return nil, &NoProviderError{Provider: provider, Model: cfg.Model, Registered: p.Names()}
	}
	cfg.Provider = provider
	m, err := f(ctx, cfg)
	if err != nil {
		if ce, ok := err.(*ConfigError); ok {
			if ce.Model != "" {
				return nil, ce
			}
			named := *ce
			named.Model = cfg.Model
			return nil, &named
		}
		return nil, fmt.Errorf("llm: model %q: %w", cfg.Model, err)
	}
	if m == nil {
		return nil, fmt.Errorf("llm: model %q: provider %q returned no LLM", cfg.Model, provider)
	}
	return m, nil
}

// A NoProviderError reports a model whose provider has no factory registered.
type NoProviderError struct {
	Provider   string
	Model      string
	Registered []string // sorted
}

// Error implements error.
func (e *NoProviderError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm: no provider %q registered for model %q; ", e.Provider, e.Model)
	fmt.Fprintf(&b, "register a factory for it with Providers.Register(%q, factory) (llm/openai serves OpenAI and OpenAI-compatible servers, llm/anthropic serves Anthropic)", e.Provider)
	if len(e.Registered) == 0 {
		b.WriteString("; no providers are registered")
	} else {
		fmt.Fprintf(&b, ", or name a registered provider in the model string (\"provider/model\"); registered: %s", strings.Join(e.Registered, ", "))
	}
	return b.String()
}
