package memorytest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
)

// tolerance allows for stores that compute similarity in float32.
const tolerance = 1e-5

func testSearchSimilarity(t *testing.T, s memory.Store) {
	ctx := context.Background()
	Put(t, s,
		Rec("same", "/", 2, 0, 0), // scale does not matter: cosine 1
		Rec("diag", "/", 1, 1, 0), // cosine 1/√2
		Rec("ortho", "/", 0, 1, 0),
		Rec("opposite", "/", -1, 0, 0),
		Rec("near", "/", 3, 1, 0), // cosine 3/√10
	)
	q := []float32{1, 0, 0}
	cases := []struct {
		name   string
		min    float64
		limit  int
		want   []string
		scores []float64
	}{
		{"non-negative by default", 0, 0, []string{"same", "near", "diag", "ortho"}, []float64{1, 3 / math.Sqrt(10), 1 / math.Sqrt2, 0}},
		{"all with -1", -1, 0, []string{"same", "near", "diag", "ortho", "opposite"}, []float64{1, 3 / math.Sqrt(10), 1 / math.Sqrt2, 0, -1}},
		{"threshold", 0.9, 0, []string{"same", "near"}, []float64{1, 3 / math.Sqrt(10)}},
		{"limit", -1, 2, []string{"same", "near"}, []float64{1, 3 / math.Sqrt(10)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Search(ctx, memory.SearchRequest{Vector: q, MinSimilarity: c.min, Filter: memory.Filter{Limit: c.limit}, Now: Epoch})
			require.NoError(t, err)
			require.Equal(t, c.want, MatchIDs(got))
			for i, m := range got {
				assert.InDelta(t, c.scores[i], m.Score, tolerance, m.Record.ID)
				assert.InDelta(t, c.scores[i], m.Parts.Similarity, tolerance, m.Record.ID)
				assert.Equal(t, "content of "+m.Record.ID, m.Record.Content, "matches carry whole records")
			}
		})
	}
}

func testSearchComposite(t *testing.T, s memory.Store) {
	ctx := context.Background()
	now := Epoch
	mk := func(id string, ageDays, importance float64, vec ...float32) memory.Record {
		r := Rec(id, "/", vec...)
		r.CreatedAt = now.Add(-Days(ageDays))
		r.Importance = importance
		return r
	}
	// With 0.5·sim + 0.3·0.5^(age/30) + 0.2·importance:
	//   fresh:    0.5·0.6    + 0.3·1     + 0.2·0.5 = 0.70
	//   exact:    0.5·1      + 0.3·0.25  + 0.2·0.5 = 0.675   (60 days old)
	//   vital:    0.5·0.6    + 0.3·0.5   + 0.2·1   = 0.65    (30 days old)
	//   future:   0.5·0      + 0.3·1     + 0.2·0   = 0.30    (created after now: recency 1)
	//   ancient:  0.5·1      + 0.3·2^-10 + 0.2·0   ≈ 0.50029 (300 days old)
	Put(t, s,
		mk("fresh", 0, 0.5, 0.6, 0.8),
		mk("exact", 60, 0.5, 1, 0),
		mk("vital", 30, 1, 0.6, 0.8),
		mk("future", -2, 0, 0, 1),
		mk("ancient", 300, 0, 1, 0),
	)
	r := memory.DefaultRanking()
	got, err := s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 0}, Ranking: r, Now: now})
	require.NoError(t, err)
	require.Equal(t, []string{"fresh", "exact", "vital", "ancient", "future"}, MatchIDs(got))
	want := []struct{ score, sim, rec, imp float64 }{
		{0.70, 0.6, 1, 0.5},
		{0.675, 1, 0.25, 0.5},
		{0.65, 0.6, 0.5, 1},
		{0.5 + 0.3*math.Exp2(-10), 1, math.Exp2(-10), 0},
		{0.30, 0, 1, 0},
	}
	for i, m := range got {
		assert.InDelta(t, want[i].score, m.Score, tolerance, m.Record.ID)
		assert.InDelta(t, want[i].sim, m.Parts.Similarity, tolerance, m.Record.ID)
		assert.InDelta(t, want[i].rec, m.Parts.Recency, 1e-12, m.Record.ID)
		assert.Equal(t, want[i].imp, m.Parts.Importance, m.Record.ID)
	}

	// Other weights and half-life reorder the same records.
	imp := memory.Ranking{Importance: 1, Similarity: 0.1, HalfLife: 24 * time.Hour}
	got, err = s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 0}, Ranking: imp, Now: now, Filter: memory.Filter{Limit: 3}})
	require.NoError(t, err)
	assert.Equal(t, []string{"vital", "exact", "fresh"}, MatchIDs(got))
}

func testSearchTiesByID(t *testing.T, s memory.Store) {
	ctx := context.Background()
	Put(t, s, Rec("c", "/", 1, 1), Rec("a", "/", 2, 2), Rec("b", "/", 1, 1), Rec("d", "/", 0, 1))
	for _, limit := range []int{0, 1, 2, 3} {
		got, err := s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 1}, Ranking: memory.DefaultRanking(), Now: Epoch, Filter: memory.Filter{Limit: limit}})
		require.NoError(t, err)
		want := []string{"a", "b", "c", "d"}
		if limit > 0 {
			want = want[:limit]
		}
		assert.Equal(t, want, MatchIDs(got), "limit %d", limit)
	}
}

func testSearchFilters(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mk := func(id, scope string, cats []string, ageDays float64, vec ...float32) memory.Record {
		r := Rec(id, scope, vec...)
		r.Categories = cats
		r.CreatedAt = Epoch.Add(-Days(ageDays))
		return r
	}
	Put(t, s,
		mk("a1", "/flow/a", []string{"x"}, 1, 1, 0),
		mk("a2", "/flow/a/agent/r", []string{"y"}, 2, 0.9, 0.1),
		mk("ab", "/flow/ab", []string{"x"}, 3, 1, 0.01),
		mk("b", "/flow/b", nil, 4, 0.8, 0.2),
	)
	cases := []struct {
		name string
		f    memory.Filter
		want []string
	}{
		{"no filter", memory.Filter{}, []string{"a1", "ab", "a2", "b"}},
		{"scope on segments", memory.Filter{Scope: "/flow/a"}, []string{"a1", "a2"}},
		{"category", memory.Filter{Categories: []string{"x"}}, []string{"a1", "ab"}},
		{"since", memory.Filter{Since: Epoch.Add(-Days(2.5))}, []string{"a1", "a2"}},
		{"scope, category and limit", memory.Filter{Scope: "/flow", Categories: []string{"x", "y"}, Limit: 2}, []string{"a1", "ab"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 0}, Filter: c.f, Now: Epoch})
			require.NoError(t, err)
			assert.Equal(t, c.want, MatchIDs(got))
		})
	}
}

func testSearchWithoutVectors(t *testing.T, s memory.Store) {
	ctx := context.Background()
	empty, err := s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 0}, Now: Epoch})
	require.NoError(t, err)
	assert.Empty(t, empty, "an empty store finds nothing")

	plain := Rec("plain", "/")
	plain.Importance = 0.9
	Put(t, s, plain, Rec("vec", "/", 1, 0))
	got, err := s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 0}, Now: Epoch})
	require.NoError(t, err)
	require.Equal(t, []string{"vec", "plain"}, MatchIDs(got), "records without embedding have similarity 0")
	assert.Zero(t, got[1].Parts.Similarity)

	// An empty query vector ranks by recency and importance alone.
	got, err = s.Search(ctx, memory.SearchRequest{Ranking: memory.DefaultRanking(), Now: Epoch})
	require.NoError(t, err)
	require.Equal(t, []string{"plain", "vec"}, MatchIDs(got))
	assert.InDelta(t, 0.3+0.2*0.9, got[0].Score, tolerance)
}

func testSearchRejectsDimension(t *testing.T, s memory.Store) {
	Put(t, s, Rec("a", "/", 1, 0, 0))
	_, err := s.Search(context.Background(), memory.SearchRequest{Vector: []float32{1, 0}, Now: Epoch})
	require.ErrorIs(t, err, memory.ErrDimension)
}

// testSearchAfterDeletes churns a store past a few thousand records and
// checks search against brute force.
func testSearchAfterDeletes(t *testing.T, s memory.Store) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	const n, dim = 3000, 8
	live := map[string]memory.Record{}
	batch := make([]memory.Record, 0, n)
	for i := range n {
		v := make([]float32, dim)
		for d := range v {
			v[d] = float32(rng.NormFloat64())
		}
		r := Rec(fmt.Sprintf("r%04d", i), fmt.Sprintf("/s%d", i%3), v...)
		r.Importance = rng.Float64()
		r.CreatedAt = Epoch.Add(-time.Duration(rng.IntN(90*24)) * time.Hour)
		batch = append(batch, r)
		live[r.ID] = r
	}
	Put(t, s, batch...)
	var gone []string
	for id := range live {
		if rng.IntN(3) == 0 {
			gone = append(gone, id)
		}
	}
	n1, err := s.Delete(ctx, gone...)
	require.NoError(t, err)
	require.Equal(t, len(gone), n1)
	for _, id := range gone {
		delete(live, id)
	}
	n2, err := s.DeleteScope(ctx, "/s1")
	require.NoError(t, err)
	for id, r := range live {
		if r.Scope == "/s1" {
			delete(live, id)
			n2--
		}
	}
	require.Zero(t, n2, "DeleteScope count")

	q := []float32{1, -1, 0.5, 0, 2, 0, 0, 1}
	rank := memory.DefaultRanking()
	type scored struct {
		id    string
		score float64
	}
	var want []scored
	for id, r := range live {
		score, _ := rank.Score(memory.Cosine(q, r.Embedding), r.CreatedAt, r.Importance, Epoch)
		want = append(want, scored{id, score})
	}
	slices.SortFunc(want, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return cmpString(a.id, b.id)
	})
	got, err := s.Search(ctx, memory.SearchRequest{Vector: q, Ranking: rank, Now: Epoch, MinSimilarity: -1, Filter: memory.Filter{Limit: 20}})
	require.NoError(t, err)
	require.Len(t, got, 20)
	for i, m := range got {
		assert.Equal(t, want[i].id, m.Record.ID, "rank %d", i)
		assert.InDelta(t, want[i].score, m.Score, tolerance)
	}
	all, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	assert.Len(t, all, len(live))
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func testConcurrent(t *testing.T, s memory.Store) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				id := fmt.Sprintf("w%d-%d", w, i)
				if err := s.Put(ctx, Rec(id, fmt.Sprintf("/w%d", w), float32(w+1), float32(i))); err != nil {
					errs <- err
					return
				}
				if _, err := s.Search(ctx, memory.SearchRequest{Vector: []float32{1, 1}, Filter: memory.Filter{Limit: 5}, Now: Epoch}); err != nil {
					errs <- err
					return
				}
				if i%5 == 0 {
					if _, err := s.Delete(ctx, id); err != nil {
						errs <- err
						return
					}
				}
				if _, err := s.List(ctx, memory.Filter{Scope: fmt.Sprintf("/w%d", w)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	all, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	assert.Len(t, all, 4*40)
}
