package memory_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/memorytest"
)

func TestRecallRanksByCompositeScore(t *testing.T) {
	emb := &vectors{table: map[string][]float32{
		"query":          {1, 0},
		"old but exact":  {1, 0},
		"new and close":  {0.8, 0.6},
		"vital, distant": {0, 1},
		"middling":       {0.6, 0.8},
	}}
	m, clock := newMemory(t, memory.WithEmbedder(emb))
	remember(t, m, described("old but exact", "/", 0.5)) // m1, day 0
	clock.Advance(memorytest.Days(30))
	remember(t, m, described("middling", "/", 0.5)) // m2, day 30
	clock.Advance(memorytest.Days(30))
	remember(t, m, described("new and close", "/", 0.2), described("vital, distant", "/", 1)) // m3, m4, day 60

	got, err := m.Recall(context.Background(), memory.Query{Text: "query"})
	require.NoError(t, err)
	// now = day 60:
	//   m3: 0.5·0.8 + 0.3·1    + 0.2·0.2 = 0.74
	//   m1: 0.5·1   + 0.3·0.25 + 0.2·0.5 = 0.675
	//   m4: 0.5·0   + 0.3·1    + 0.2·1   = 0.50
	//   m2: 0.5·0.6 + 0.3·0.5  + 0.2·0.5 = 0.55
	require.Equal(t, []string{"m3", "m1", "m2", "m4"}, memorytest.MatchIDs(got))
	want := []struct{ score, sim, rec, imp float64 }{
		{0.74, 0.8, 1, 0.2},
		{0.675, 1, 0.25, 0.5},
		{0.55, 0.6, 0.5, 0.5},
		{0.50, 0, 1, 1},
	}
	for i, g := range got {
		assert.InDelta(t, want[i].score, g.Score, 1e-6, g.Record.ID)
		assert.InDelta(t, want[i].sim, g.Parts.Similarity, 1e-6, g.Record.ID)
		assert.InDelta(t, want[i].rec, g.Parts.Recency, 1e-12, g.Record.ID)
		assert.Equal(t, want[i].imp, g.Parts.Importance, g.Record.ID)
	}

	// A year later recency has faded and similarity leads.
	clock.Advance(memorytest.Days(365))
	assert.Equal(t, []string{"m1", "m3", "m2", "m4"}, recallIDs(t, m, memory.Query{Text: "query"}))
}

func TestRecallWithCustomRanking(t *testing.T) {
	emb := &vectors{table: map[string][]float32{"q": {1, 0}, "a": {1, 0}, "b": {0.5, 0.5}}}
	m, clock := newMemory(t, memory.WithEmbedder(emb), memory.WithRanking(memory.Ranking{Similarity: 1, Recency: 1, HalfLife: 24 * time.Hour}))
	remember(t, m, described("a", "/", 0)) // m1 at day 0
	clock.Advance(memorytest.Days(2))
	remember(t, m, described("b", "/", 0)) // m2 at day 2
	got, err := m.Recall(context.Background(), memory.Query{Text: "q"})
	require.NoError(t, err)
	require.Equal(t, []string{"m2", "m1"}, memorytest.MatchIDs(got))
	assert.InDelta(t, math.Sqrt(0.5)+1, got[0].Score, 1e-6) // cosine of (1,0) and (.5,.5) is 1/√2
	assert.InDelta(t, 1+0.25, got[1].Score, 1e-6)
}

func TestRecallFilters(t *testing.T) {
	m, clock := newMemory(t, memory.WithRootScope("/flow/trip"))
	remember(t, m,
		described("alice likes window seats", "/agent/planner", 0.5, "preferences"), // m1
		described("alice flies from Oslo", "/agent/booker", 0.5, "facts"),           // m2
		described("alice loves aisle seats", "/agent/planner2", 0.5, "preferences"), // m3
	)
	clock.Advance(time.Hour)
	remember(t, m, described("bob likes window seats too", "/agent/planner/notes", 0.5)) // m4
	other := m.Sub("/..").Sub("/flow/elsewhere")                                         // cannot climb out of the root
	assert.Equal(t, "/flow/trip/flow/elsewhere", other.Root())

	cases := []struct {
		name string
		q    memory.Query
		want []string
	}{
		// Lexical cosines with "window seats": m1 0.717, m4 0.673, m3 0.344, m2 0.
		{"whole root", memory.Query{Text: "window seats"}, []string{"m1", "m4", "m3", "m2"}},
		{"scope on path segments", memory.Query{Text: "window seats", Scope: "/agent/planner"}, []string{"m1", "m4"}},
		// With "seats": m3 0.500, m1 0.493.
		{"category", memory.Query{Text: "seats", Categories: []string{"preferences"}}, []string{"m3", "m1"}},
		{"since", memory.Query{Text: "seats", Since: memorytest.Epoch.Add(time.Minute)}, []string{"m4"}},
		{"limit", memory.Query{Text: "window seats", Limit: 1}, []string{"m1"}},
		{"similarity floor", memory.Query{Text: "Oslo", MinSimilarity: 0.2}, []string{"m2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, recallIDs(t, m, c.q))
		})
	}

	// A Sub view sees only its part; its scopes are relative to it.
	planner := m.Sub("agent")
	assert.Equal(t, []string{"m1", "m4", "m3", "m2"}, recallIDs(t, planner, memory.Query{Text: "window seats"}))
	assert.Empty(t, recallIDs(t, other, memory.Query{Text: "window seats"}))
}

func TestForget(t *testing.T) {
	ctx := context.Background()
	m, _ := newMemory(t, memory.WithRootScope("/flow/a"))
	remember(t, m,
		described("one", "/x", 0.5),   // m1
		described("two", "/x/y", 0.5), // m2
		described("three", "/xy", 0.5),
		described("four", "/", 0.5),
	)
	outside, err := memory.New(m.Store(), memory.WithRootScope("/flow/b"))
	require.NoError(t, err)
	_, err = outside.Remember(ctx, described("elsewhere", "/", 0.5))
	require.NoError(t, err)
	all, err := outside.List(ctx, memory.Filter{})
	require.NoError(t, err)
	require.Len(t, all, 1)

	n, err := m.Forget(ctx, "m1", all[0].ID, "missing")
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a Memory forgets only records within its root")
	n, err = m.ForgetScope(ctx, "/x")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	left, err := m.List(ctx, memory.Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"three", "four"}, contents(left))
	_, err = m.Get(ctx, all[0].ID)
	require.ErrorIs(t, err, memory.ErrNotFound)
	_, err = outside.Get(ctx, all[0].ID)
	require.NoError(t, err)
}

func contents(rs []memory.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Content
	}
	return out
}

func TestRecallWithoutTextRanksByRecencyAndImportance(t *testing.T) {
	m, clock := newMemory(t)
	remember(t, m, described("older but vital", "/", 1)) // m1
	clock.Advance(memorytest.Days(30))
	remember(t, m, described("newer", "/", 0.5)) // m2
	// m1: 0.3·0.5 + 0.2·1 = 0.35; m2: 0.3·1 + 0.2·0.5 = 0.40
	assert.Equal(t, []string{"m2", "m1"}, recallIDs(t, m, memory.Query{}))
}
