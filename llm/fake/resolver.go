package fake

import (
	"context"
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

// Resolve implements [llm.Resolver].
func (r Resolver) Resolve(_ context.Context, cfg llm.Config) (llm.LLM, error) {
	provider, model := cfg.ProviderModel()
	for _, key := range [...]string{strings.TrimSpace(cfg.Model), provider + "/" + model, model, "*"} {
		if m, ok := r[key]; ok && m != nil {
			return m, nil
		}
	}
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return nil, fmt.Errorf("fake: no fake model for %q; add it to the fake.Resolver (it has %s) or add a \"*\" entry", cfg.Model, strings.Join(keys, ", "))
}

// Factory returns r.Resolve as an [llm.Factory].
func (r Resolver) Factory() llm.Factory { return r.Resolve }
