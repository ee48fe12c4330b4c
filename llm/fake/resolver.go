package fake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/troupe-dev/troupe/llm"
)

// Resolve implements [llm.Resolver]: every configuration resolves to m.
func (m *Model) Resolve(context.Context, llm.Config) (llm.LLM, error) { return m, nil }

// Factory returns a factory that always returns m. Registered under
// [llm.AnyProvider] it serves every model of a registry:
//
//	providers.Register(llm.AnyProvider, model.Factory())
func (m *Model) Factory() llm.Factory { return m.Resolve }

// Resolver serves different fake models for different model strings. A
// configuration is looked up by its model string as written
// ("openai/gpt-4o"), then as "provider/model" ("gpt-4o" is "openai/gpt-4o"),
// then by the bare model name, and finally under "*".
type Resolver map[string]*Model

// Resolve implements [llm.Resolver]. A model string it has no model for is
// an error naming it.
func (r Resolver) Resolve(_ context.Context, cfg llm.Config) (llm.LLM, error) {
	if m := r.find(cfg); m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("fake: no fake model for %q; %s", cfg.Model, r.hint())
}

// Factory returns an [llm.Factory] resolving like r.Resolve. Its errors
// leave the model to the registry, which names it.
func (r Resolver) Factory() llm.Factory {
	return func(_ context.Context, cfg llm.Config) (llm.LLM, error) {
		if m := r.find(cfg); m != nil {
			return m, nil
		}
		return nil, errors.New("fake: no fake model matches; " + r.hint())
	}
}

// find looks cfg up as Resolve describes, or returns nil.
func (r Resolver) find(cfg llm.Config) *Model {
	provider, model := cfg.ProviderModel()
	for _, key := range [...]string{strings.TrimSpace(cfg.Model), provider + "/" + model, model, "*"} {
		if m, ok := r[key]; ok && m != nil {
			return m
		}
	}
	return nil
}

// hint says how to serve a model r lacks.
func (r Resolver) hint() string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return fmt.Sprintf("add it to the fake.Resolver (it has %s) or add a \"*\" entry", strings.Join(keys, ", "))
}
