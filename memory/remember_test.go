package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/memorytest"
)

func TestRememberSkipsDuplicates(t *testing.T) {
	emb := &vectors{table: map[string][]float32{
		"original":     {1, 0, 0},
		"near copy":    {0.99, 0.141, 0},  // cosine 0.98999
		"close enough": {0.98, 0.1989, 0}, // cosine 0.98002
		"just below":   {0.97, 0.2431, 0}, // cosine 0.97001
		"elsewhere":    {1, 0, 0},
		"retell":       {0, 0, 1}, // an embedder may drift; same text is still a duplicate
	}}
	m, _ := newMemory(t, memory.WithEmbedder(emb))
	first := remember(t, m, described("original", "/a", 0.5), described("retell", "/a", 0.5))
	require.True(t, first[0].Inserted)

	emb.table["retell"] = []float32{0, 1, 0}
	cases := []struct {
		item      memory.Item
		duplicate bool
	}{
		{described("original", "/a", 0.9), true},
		{described("  original\n", "/a/b", 0.5), false}, // see below
		{described("near copy", "/a", 0.5), true},
		{described("close enough", "/a", 0.5), true},
		{described("just below", "/a", 0.5), false},
		{described("retell", "/a", 0.5), true},
		{described("elsewhere", "/b", 0.5), false}, // same vector, other scope
	}
	for _, c := range cases {
		t.Run(c.item.Content, func(t *testing.T) {
			s, err := m.Remember(context.Background(), c.item)
			require.NoError(t, err)
			if c.item.Scope == "/a/b" {
				// Duplicates are looked for within the item's own scope, and
				// /a is not within /a/b: the record is new there.
				assert.True(t, s.Inserted)
				return
			}
			assert.Equal(t, c.duplicate, s.Duplicate)
			assert.Equal(t, !c.duplicate, s.Inserted)
			if c.duplicate {
				assert.Equal(t, "/a", s.Record.Scope)
				assert.Contains(t, []string{"m1", "m2"}, s.Record.ID)
			}
		})
	}
	all, err := m.List(context.Background(), memory.Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"original", "retell", "original", "just below", "elsewhere"}, contents(all))
}

func TestRememberBatchSkipsDuplicatesWithinIt(t *testing.T) {
	m, _ := newMemory(t)
	saved := remember(t, m,
		described("Alice prefers green tea.", "/", 0.5),
		described("alice prefers GREEN tea!", "/", 0.5), // lexically identical
		described("Bob prefers coffee.", "/", 0.5),
	)
	assert.True(t, saved[0].Inserted)
	assert.True(t, saved[1].Duplicate)
	assert.Equal(t, saved[0].Record.ID, saved[1].Record.ID)
	assert.True(t, saved[2].Inserted)
}

func TestRememberDescribedCallsNoModel(t *testing.T) {
	model := &script{}
	var spends []memory.Spend
	m, _ := newMemory(t, memory.WithModel(model), memory.WithSpendObserver(func(s memory.Spend) { spends = append(spends, s) }))
	saved := remember(t, m,
		described("the launch moved to May", "/project", 0.9, "dates"),
		memory.Item{Content: "no categories, on purpose", Scope: "/project", Categories: []string{}, Importance: memory.Importance(0)},
	)
	assert.Zero(t, model.calls())
	assert.Empty(t, spends)
	assert.Equal(t, memory.Spending{}, m.Usage())
	assert.Equal(t, "/project", saved[0].Record.Scope)
	assert.Equal(t, []string{"dates"}, saved[0].Record.Categories)
	assert.Equal(t, 0.9, saved[0].Record.Importance)
	assert.Nil(t, saved[1].Record.Categories)
	assert.Zero(t, saved[1].Record.Importance)
}

func TestRememberWithoutModelUsesDefaults(t *testing.T) {
	m, _ := newMemory(t, memory.WithRootScope("/flow/x"))
	s, err := m.Remember(context.Background(), memory.Item{Content: "a bare note", Metadata: map[string]any{"n": 1}})
	require.NoError(t, err)
	assert.Equal(t, "/flow/x", s.Record.Scope)
	assert.Nil(t, s.Record.Categories)
	assert.Equal(t, 0.5, s.Record.Importance)
	assert.Equal(t, map[string]any{"n": int64(1)}, s.Record.Metadata)
	assert.True(t, s.Record.CreatedAt.Equal(memorytest.Epoch))
}

func TestRememberAsksModelForMissingFields(t *testing.T) {
	model := &script{
		replies: []string{"Sure!\n```json\n{\"scope\": \"customers/acme\", \"categories\": [\"contracts\", \" \", \"contracts\"], \"importance\": 1.7}\n```"},
		usage:   memory.Usage{InputTokens: 120, OutputTokens: 30},
	}
	var spends []memory.Spend
	m, _ := newMemory(t, memory.WithRootScope("/flow/sales"), memory.WithModel(model),
		memory.WithSpendObserver(func(s memory.Spend) { spends = append(spends, s) }))
	s, err := m.Remember(context.Background(), memory.Item{Content: "Acme renews in June", Importance: memory.Importance(0.3)})
	require.NoError(t, err)

	assert.Equal(t, 1, model.calls())
	assert.Contains(t, model.prompts[0], "Acme renews in June")
	assert.Equal(t, "/flow/sales/customers/acme", s.Record.Scope)
	assert.Equal(t, []string{"contracts"}, s.Record.Categories)
	assert.Equal(t, 0.3, s.Record.Importance, "the caller's importance wins over the model's")
	want := memory.Usage{InputTokens: 120, OutputTokens: 30, Requests: 1}
	assert.Equal(t, []memory.Spend{{Kind: memory.SpendFile, Usage: want}}, spends)
	assert.Equal(t, memory.Spending{Model: want}, m.Usage())
}

func TestRememberFallsBackWhenModelFails(t *testing.T) {
	cases := []struct {
		name  string
		model *script
	}{
		{"call error", &script{replies: []string{""}, errs: []error{errors.New("rate limited")}}},
		{"no JSON", &script{replies: []string{"I would file it under customers."}}},
		{"bad JSON", &script{replies: []string{`{"scope": 7}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var spends []memory.Spend
			m, _ := newMemory(t, memory.WithModel(c.model), memory.WithSpendObserver(func(s memory.Spend) { spends = append(spends, s) }))
			s, err := m.Remember(context.Background(), memory.Item{Content: "something"})
			require.NoError(t, err)
			assert.True(t, s.Inserted)
			assert.Equal(t, "/", s.Record.Scope)
			assert.Equal(t, 0.5, s.Record.Importance)
			require.Len(t, spends, 1)
			assert.Error(t, spends[0].Err)
			assert.Equal(t, int64(1), m.Usage().Model.Requests)
		})
	}
}

func TestRememberConsolidates(t *testing.T) {
	// The stored notes are 60° apart (cosine 0.5, not similar); the new
	// note lies between them, 29° from the first (cosine 0.8746) and 31°
	// from the second (0.8572), similar to both.
	emb := &vectors{table: map[string][]float32{
		"alice lives in Oslo":   {1, 0, 0},
		"alice has a cat":       {0.5, 0.8660254, 0},
		"unrelated":             {0, 0, 1},
		"alice moved to Bergen": {0.8746197, 0.4848096, 0},
		"alice lives in Bergen": {0.9, 0.1, 0.3},
	}}
	cases := []struct {
		name             string
		item             string
		reply            string
		calls            int
		inserted         bool
		updated, deleted []string
		want             []string
	}{
		{
			name: "update and delete, no insert", item: "alice moved to Bergen",
			reply:    `{"actions": [{"note": 1, "action": "update", "content": "alice lives in Bergen"}, {"note": 2, "action": "delete"}, {"note": 2, "action": "update", "content": "ignored"}], "insert": false}`,
			calls:    1,
			updated:  []string{"m1"},
			deleted:  []string{"m2"},
			want:     []string{"alice lives in Bergen", "unrelated"},
			inserted: false,
		},
		{
			name: "keep and insert", item: "alice moved to Bergen",
			reply: `{"actions": [{"note": 1, "action": "keep"}, {"note": 9, "action": "delete"}], "insert": true}`,
			calls: 1, inserted: true,
			want: []string{"alice lives in Oslo", "alice has a cat", "unrelated", "alice moved to Bergen"},
		},
		{
			name: "unreadable reply keeps all and inserts", item: "alice moved to Bergen",
			reply: `no idea`, calls: 1, inserted: true,
			want: []string{"alice lives in Oslo", "alice has a cat", "unrelated", "alice moved to Bergen"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := &script{replies: []string{c.reply}}
			m, _ := newMemory(t, memory.WithEmbedder(emb), memory.WithModel(model), memory.WithConsolidation())
			remember(t, m, described("alice lives in Oslo", "/", 0.5), described("alice has a cat", "/", 0.5), described("unrelated", "/", 0.5))
			require.Zero(t, model.calls(), "nothing similar yet: no consolidation call")

			s, err := m.Remember(context.Background(), described(c.item, "/", 0.5))
			require.NoError(t, err)
			assert.Equal(t, c.calls, model.calls())
			assert.Equal(t, c.inserted, s.Inserted)
			assert.Equal(t, c.updated, s.Updated)
			assert.Equal(t, c.deleted, s.Deleted)
			all, err := m.List(context.Background(), memory.Filter{})
			require.NoError(t, err)
			assert.Equal(t, c.want, contents(all))
			if len(c.updated) > 0 {
				r, err := m.Get(context.Background(), c.updated[0])
				require.NoError(t, err)
				assert.Equal(t, emb.table[r.Content], r.Embedding, "updated records are re-embedded")
			}
		})
	}
}

func TestRememberCountsEmbeddingSpend(t *testing.T) {
	emb := &vectors{table: map[string][]float32{"a": {1, 0}, "b": {0, 1}}, cost: memory.Usage{InputTokens: 4, Requests: 1}}
	var kinds []memory.SpendKind
	m, _ := newMemory(t, memory.WithEmbedder(emb), memory.WithSpendObserver(func(s memory.Spend) { kinds = append(kinds, s.Kind) }))
	remember(t, m, described("a", "/", 0.5), described("b", "/", 0.5))
	_, err := m.Recall(context.Background(), memory.Query{Text: "a"})
	require.NoError(t, err)
	assert.Equal(t, 2, emb.calls, "one call for the batch, one for the query")
	assert.Equal(t, []memory.SpendKind{memory.SpendEmbed, memory.SpendEmbed}, kinds)
	assert.Equal(t, memory.Spending{Embedding: memory.Usage{InputTokens: 8, Requests: 2}}, m.Usage())
}

func TestRememberRejectsBadItems(t *testing.T) {
	m, _ := newMemory(t)
	cases := map[string]memory.Item{
		"blank":      {Content: " \n "},
		"importance": {Content: "x", Importance: memory.Importance(-0.1)},
		"metadata":   {Content: "x", Metadata: map[string]any{"c": make(chan int)}},
	}
	for name, it := range cases {
		_, err := m.Remember(context.Background(), it)
		assert.Error(t, err, name)
	}
	all, err := m.List(context.Background(), memory.Filter{})
	require.NoError(t, err)
	assert.Empty(t, all)
}

func TestNewRejectsBadOptions(t *testing.T) {
	cases := map[string][]memory.Option{
		"consolidation without model": {memory.WithConsolidation()},
		"negative weight":             {memory.WithRanking(memory.Ranking{Similarity: -1})},
		"nil embedder":                {memory.WithEmbedder(nil)},
		"threshold":                   {func(o *memory.Options) { o.DuplicateThreshold = 2 }},
	}
	for name, opts := range cases {
		_, err := memory.New(memory.NewInMemoryStore(), opts...)
		assert.Error(t, err, name)
	}
	_, err := memory.New(nil)
	assert.Error(t, err)
}
