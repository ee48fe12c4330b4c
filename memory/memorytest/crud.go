package memorytest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
)

func testPutGetRoundTrip(t *testing.T, s memory.Store) {
	ctx := context.Background()
	want := memory.Record{
		ID:         "r1",
		Content:    "Alice prefers green tea — 緑茶.",
		Scope:      "/flow/trip/agent/planner",
		Categories: []string{"preferences", "people"},
		Importance: 0.75,
		CreatedAt:  Epoch,
		UpdatedAt:  Epoch.Add(time.Hour + 123*time.Nanosecond),
		Metadata: map[string]any{
			"count": int64(3), "ratio": 1.0, "name": "alice", "ok": true, "none": nil,
			"list": []any{int64(1), 2.5, "x"}, "nested": map[string]any{"k": int64(-7)},
		},
		Embedding: []float32{0.1, -0.25, 3.5e-8, 1},
	}
	Put(t, s, want)
	got, err := s.Get(ctx, "r1")
	require.NoError(t, err)
	assertRecord(t, want, got)
}

// assertRecord compares records field by field, times by instant.
func assertRecord(t *testing.T, want, got memory.Record) {
	t.Helper()
	assert.Equal(t, want.ID, got.ID)
	assert.Equal(t, want.Content, got.Content)
	assert.Equal(t, want.Scope, got.Scope)
	assert.Equal(t, want.Categories, got.Categories)
	assert.Equal(t, want.Importance, got.Importance)
	assert.True(t, want.CreatedAt.Equal(got.CreatedAt), "CreatedAt: want %v, got %v", want.CreatedAt, got.CreatedAt)
	assert.True(t, want.UpdatedAt.Equal(got.UpdatedAt), "UpdatedAt: want %v, got %v", want.UpdatedAt, got.UpdatedAt)
	assert.Equal(t, want.Metadata, got.Metadata)
	assert.Equal(t, want.Embedding, got.Embedding)
}

func testGetMissing(t *testing.T, s memory.Store) {
	Put(t, s, Rec("a", "/"))
	_, err := s.Get(context.Background(), "nope")
	require.ErrorIs(t, err, memory.ErrNotFound)
}

func testPutReplaces(t *testing.T, s memory.Store) {
	ctx := context.Background()
	Put(t, s, Rec("a", "/x", 1, 0), Rec("b", "/x", 0, 1))
	changed := Rec("a", "/y", 0, 1)
	changed.Content = "changed"
	changed.Categories = []string{"c"}
	Put(t, s, changed)

	got, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assertRecord(t, changed, got)
	inX, err := s.List(ctx, memory.Filter{Scope: "/x"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, IDs(inX))
	all, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, IDs(all))
	m, err := s.Search(ctx, memory.SearchRequest{Vector: []float32{0, 1}, Filter: memory.Filter{Scope: "/y"}, Now: Epoch})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, MatchIDs(m))
}

func testPutCopies(t *testing.T, s memory.Store) {
	ctx := context.Background()
	r := Rec("a", "/", 1, 2)
	r.Categories = []string{"c"}
	r.Metadata = map[string]any{"k": "v"}
	Put(t, s, r)
	r.Categories[0], r.Metadata["k"], r.Embedding[0] = "changed", "changed", 9

	got, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, []string{"c"}, got.Categories)
	assert.Equal(t, map[string]any{"k": "v"}, got.Metadata)
	assert.Equal(t, []float32{1, 2}, got.Embedding)

	got.Categories[0], got.Metadata["k"], got.Embedding[0] = "changed", "changed", 9
	again, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, []string{"c"}, again.Categories, "Get must return a copy")
	assert.Equal(t, "v", again.Metadata["k"])
	assert.Equal(t, float32(1), again.Embedding[0])
}

func testPutRejectsInvalid(t *testing.T, s memory.Store) {
	ctx := context.Background()
	high := Rec("hi", "/")
	high.Importance = 1.5
	badMeta := Rec("meta", "/")
	badMeta.Metadata = map[string]any{"f": func() {}}
	for name, r := range map[string]memory.Record{"no ID": Rec("", "/"), "importance": high, "metadata": badMeta} {
		assert.Error(t, s.Put(ctx, r), name)
	}
	all, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	assert.Empty(t, all)
}

func testPutRejectsDimension(t *testing.T, s memory.Store) {
	ctx := context.Background()
	Put(t, s, Rec("a", "/", 1, 0, 0))
	err := s.Put(ctx, Rec("b", "/", 1, 0, 0), Rec("c", "/", 1, 0))
	require.ErrorIs(t, err, memory.ErrDimension)
	all, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, IDs(all), "a rejected batch must write nothing")
}

func testDelete(t *testing.T, s memory.Store) {
	ctx := context.Background()
	Put(t, s, Rec("a", "/", 1, 0), Rec("b", "/", 0, 1), Rec("c", "/", 1, 1))
	n, err := s.Delete(ctx, "a", "missing", "c")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	_, err = s.Get(ctx, "a")
	require.ErrorIs(t, err, memory.ErrNotFound)
	all, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, IDs(all))
	m, err := s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 0}, MinSimilarity: -1, Now: Epoch})
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, MatchIDs(m))
	n, err = s.Delete(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
}

func testDeleteScope(t *testing.T, s memory.Store) {
	ctx := context.Background()
	Put(t, s,
		Rec("root", "/"), Rec("a", "/a"), Rec("ab", "/a/b"), Rec("abc", "/a/b/c"),
		Rec("sibling", "/ab"), Rec("other", "/b/a"), Rec("pct", "/a%"), Rec("under", "/a_"),
	)
	n, err := s.DeleteScope(ctx, "/a/b")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	n, err = s.DeleteScope(ctx, "/a")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	all, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"root", "sibling", "other", "pct", "under"}, IDs(all))
	n, err = s.DeleteScope(ctx, "/")
	require.NoError(t, err)
	assert.Equal(t, 5, n)
}

func testListFilters(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mk := func(id, scope string, ageHours int, cats ...string) memory.Record {
		r := Rec(id, scope, 1, 0)
		r.CreatedAt = Epoch.Add(-time.Duration(ageHours) * time.Hour)
		r.Categories = cats
		return r
	}
	Put(t, s,
		mk("old", "/flow/a", 48, "fact"),
		mk("mid", "/flow/a/agent/x", 24, "preference", "fact"),
		mk("new", "/flow/ab", 1, "preference"),
		mk("tie2", "/flow/b", 24),
		mk("tie1", "/flow/b", 24, "FACT"),
	)
	cases := []struct {
		name string
		f    memory.Filter
		want []string
	}{
		{"all oldest first, ties by ID", memory.Filter{}, []string{"old", "mid", "tie1", "tie2", "new"}},
		{"scope on segments", memory.Filter{Scope: "/flow/a"}, []string{"old", "mid"}},
		{"scope written sloppily", memory.Filter{Scope: "flow//a/"}, []string{"old", "mid"}},
		{"leaf scope", memory.Filter{Scope: "/flow/a/agent/x"}, []string{"mid"}},
		{"any category, case-sensitive", memory.Filter{Categories: []string{"fact", "none"}}, []string{"old", "mid"}},
		{"since", memory.Filter{Since: Epoch.Add(-24 * time.Hour)}, []string{"mid", "tie1", "tie2", "new"}},
		{"limit", memory.Filter{Limit: 2}, []string{"old", "mid"}},
		{"combined", memory.Filter{Scope: "/flow", Categories: []string{"preference"}, Since: Epoch.Add(-30 * time.Hour), Limit: 1}, []string{"mid"}},
		{"no match", memory.Filter{Scope: "/nowhere"}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.List(ctx, c.f)
			require.NoError(t, err)
			assert.Equal(t, c.want, IDs(got))
		})
	}
}

func testCancelledContext(t *testing.T, s memory.Store) {
	Put(t, s, Rec("a", "/", 1, 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Error(t, s.Put(ctx, Rec("b", "/", 1, 0)), "Put")
	_, err := s.Get(ctx, "a")
	assert.Error(t, err, "Get")
	_, err = s.List(ctx, memory.Filter{})
	assert.Error(t, err, "List")
	_, err = s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 0}})
	assert.Error(t, err, "Search")
	_, err = s.Delete(ctx, "a")
	assert.Error(t, err, "Delete")
	_, err = s.DeleteScope(ctx, "/")
	assert.Error(t, err, "DeleteScope")
	got, err := s.Get(context.Background(), "a")
	require.NoError(t, err, "a cancelled Delete must not delete")
	assert.Equal(t, "a", got.ID)
}
