package flow_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

// TestMemoryEffectKeysAreStable runs a crew with memory twice under one
// run id: its recall before the task and its remember after are effects
// "memory#1" and "memory#2" of the method, the same both times; and an
// interceptor that serves the recall from a record decoded generically
// ([]any) is understood.
func TestMemoryEffectKeysAreStable(t *testing.T) {
	def := mustParse(t, memoryCrewYAML)
	run := func(served []any) (map[string]string, []string) {
		model := fake.New(fake.Reply{Match: "Poseidonia", Text: "Poseidonia."}, fake.Reply{Text: "Noted."})
		rec := &keyRecorder{seen: map[string]string{}}
		serve := func(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
			if served != nil && e.Kind == flow.EffectMemory && e.Name == "recall" {
				return served, nil
			}
			return next(ctx)
		}
		eng := flow.NewEngine(flow.WithLLM(model), flow.WithMemory(openMemory(t, filepath.Join(t.TempDir(), "m.db"))),
			flow.WithInterceptor(rec.intercept), flow.WithInterceptor(serve))
		_, err := eng.Run(context.Background(), def, map[string]any{"id": "r1", "question": "What is the capital of Atlantis?"})
		require.NoError(t, err)
		require.Empty(t, rec.dups)
		var texts []string
		for _, r := range model.Requests() {
			texts = append(texts, r.Messages[len(r.Messages)-1].Text())
		}
		return rec.seen, texts
	}
	keys, _ := run(nil)
	var mem []string
	for k, v := range keys {
		if strings.HasPrefix(v, "memory") {
			mem = append(mem, k+" "+v)
		}
	}
	sort.Strings(mem)
	assert.Equal(t, []string{"r1/ask#1/memory#1 memory recall", "r1/ask#1/memory#2 memory remember"}, mem)
	again, _ := run(nil)
	assert.Equal(t, keys, again)

	_, texts := run([]any{"the capital of Atlantis is Poseidonia"})
	require.Len(t, texts, 1)
	assert.Contains(t, texts[0], "Poseidonia", "the served recall reaches the prompt")
}
