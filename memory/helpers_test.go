package memory_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/memorytest"
)

// vectors is an Embedder that looks texts up in a table, so tests control
// similarities exactly; it can charge a Usage per call like a paid service.
type vectors struct {
	table map[string][]float32
	cost  memory.Usage
	calls int
}

func (v *vectors) Embed(_ context.Context, texts []string) ([][]float32, memory.Usage, error) {
	v.calls++
	out := make([][]float32, len(texts))
	for i, t := range texts {
		vec, ok := v.table[t]
		if !ok {
			return nil, memory.Usage{}, fmt.Errorf("no vector for %q", t)
		}
		out[i] = vec
	}
	return out, v.cost, nil
}

// script is a Model that replies from a list and records its prompts.
type script struct {
	mu      sync.Mutex
	replies []string
	errs    []error
	prompts []string
	usage   memory.Usage
}

func (s *script) Complete(_ context.Context, prompt string) (string, memory.Usage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := len(s.prompts)
	s.prompts = append(s.prompts, prompt)
	var err error
	if i < len(s.errs) {
		err = s.errs[i]
	}
	if i >= len(s.replies) {
		return "", s.usage, fmt.Errorf("script: no reply %d", i)
	}
	return s.replies[i], s.usage, err
}

func (s *script) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.prompts)
}

// newMemory returns a Memory on a fresh in-memory store with a clock at
// memorytest.Epoch, IDs m1, m2, ... and the given options.
func newMemory(t *testing.T, opts ...memory.Option) (*memory.Memory, *memorytest.Clock) {
	t.Helper()
	clock := memorytest.NewClock(memorytest.Epoch)
	n := 0
	base := []memory.Option{
		memory.WithClock(clock.Now),
		memory.WithIDs(func() string { n++; return fmt.Sprintf("m%d", n) }),
	}
	m, err := memory.New(memory.NewInMemoryStore(), append(base, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Store().Close() })
	return m, clock
}

// described is an Item with scope, categories and importance given.
func described(content, scope string, importance float64, cats ...string) memory.Item {
	if cats == nil {
		cats = []string{}
	}
	return memory.Item{Content: content, Scope: scope, Categories: cats, Importance: memory.Importance(importance)}
}

func remember(t *testing.T, m *memory.Memory, items ...memory.Item) []memory.Saved {
	t.Helper()
	saved, err := m.RememberMany(context.Background(), items)
	require.NoError(t, err)
	return saved
}

func recallIDs(t *testing.T, m *memory.Memory, q memory.Query) []string {
	t.Helper()
	got, err := m.Recall(context.Background(), q)
	require.NoError(t, err)
	return memorytest.MatchIDs(got)
}
