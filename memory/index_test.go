package memory

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndexParallelSearchMatchesBruteForce covers the multi-goroutine
// path, which needs more rows than the conformance suite writes.
func TestIndexParallelSearchMatchesBruteForce(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	x := NewIndex()
	const n, dim = parallelRows + 3*blockRows + 17, 12
	entries := make([]IndexEntry, n)
	for i := range entries {
		v := make([]float32, dim)
		for d := range v {
			if rng.IntN(3) > 0 {
				v[d] = float32(rng.NormFloat64())
			}
		}
		entries[i] = IndexEntry{
			ID:         fmt.Sprintf("e%05d", i),
			Scope:      fmt.Sprintf("/s%d", i%4),
			Categories: []string{fmt.Sprintf("c%d", i%3)},
			CreatedAt:  now.Add(-time.Duration(rng.IntN(1000)) * time.Hour),
			Importance: rng.Float64(),
			Vector:     v,
		}
	}
	require.NoError(t, x.Upsert(entries...))
	q := []float32{1, 0, -2, 0, 0.5, 0, 0, 3, 0, 0, 1, 0}
	for _, f := range []Filter{{Limit: 25}, {Scope: "/s2", Categories: []string{"c1"}, Limit: 7}, {Limit: 0, Scope: "/s3"}} {
		req := SearchRequest{Vector: q, Filter: f, Ranking: DefaultRanking(), Now: now, MinSimilarity: -1}
		got, err := x.Search(req)
		require.NoError(t, err)
		want := bruteForce(entries, req)
		require.Len(t, got, len(want))
		wantScore := map[string]float64{}
		for _, h := range want {
			wantScore[h.ID] = h.Score
		}
		// float32 similarities may swap near-ties against the float64
		// brute force, so compare the score sequence and each hit's score.
		for i := range want {
			assert.InDelta(t, want[i].Score, got[i].Score, 1e-6, "rank %d of %+v", i, f)
			s, ok := wantScore[got[i].ID]
			if assert.True(t, ok, got[i].ID) {
				assert.InDelta(t, s, got[i].Score, 1e-6)
			}
		}
	}
}

func bruteForce(entries []IndexEntry, req SearchRequest) []Hit {
	m := newMatcher(req.Filter)
	var out []Hit
	for _, e := range entries {
		if !m.match(&indexRow{id: e.ID, scope: e.Scope, categories: e.Categories, created: e.CreatedAt.UnixNano()}) {
			continue
		}
		score, parts := req.Ranking.Score(Cosine(req.Vector, e.Vector), e.CreatedAt, e.Importance, req.Now)
		out = append(out, Hit{ID: e.ID, Score: score, Parts: parts})
	}
	slices.SortFunc(out, func(a, b Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	if req.Filter.Limit > 0 && len(out) > req.Filter.Limit {
		out = out[:req.Filter.Limit]
	}
	return out
}

func TestIndexGrowsAndShrinksBlocks(t *testing.T) {
	x := NewIndex()
	// Entries without vectors come first; the dimension arrives later.
	var ids []string
	for i := range blockRows + 5 {
		id := fmt.Sprintf("p%04d", i)
		ids = append(ids, id)
		require.NoError(t, x.Upsert(IndexEntry{ID: id, Scope: "/"}))
	}
	assert.Zero(t, x.Dim())
	require.NoError(t, x.Upsert(IndexEntry{ID: "v", Scope: "/", Vector: []float32{0, 3}}))
	assert.Equal(t, 2, x.Dim())
	assert.Len(t, x.blocks, 2)
	hits, err := x.Search(SearchRequest{Vector: []float32{0, 1}, Filter: Filter{Limit: 2}})
	require.NoError(t, err)
	require.Len(t, hits, 2)
	assert.Equal(t, "v", hits[0].ID)
	assert.InDelta(t, 1, hits[0].Score, 1e-6)
	assert.Zero(t, hits[1].Score)

	assert.Equal(t, len(ids), x.Remove(ids...))
	assert.Equal(t, 1, x.Len())
	assert.Len(t, x.blocks, 1)
	hits, err = x.Search(SearchRequest{Vector: []float32{0, 1}})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.InDelta(t, 1, hits[0].Score, 1e-6, "the moved vector is intact")
	assert.Equal(t, 1, x.Remove("v", "v"))
	assert.Empty(t, x.blocks)
	assert.Equal(t, 2, x.Dim(), "the dimension stays")
}
