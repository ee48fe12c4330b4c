package memory

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
)

// A Hit is an index search result: an entry's ID with its score.
type Hit struct {
	ID    string
	Score float64
	Parts ScoreParts
}

// parallelRows is the index size from which a search is split across
// goroutines; below it the coordination costs more than it saves.
const parallelRows = 16 * blockRows

// Search returns the best entries for req, best first (by score, ties by
// ID), following the Store.Search contract.
func (x *Index) Search(req SearchRequest) ([]Hit, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(x.rows) == 0 {
		return nil, nil
	}
	q, err := x.prepare(req.Vector)
	if err != nil {
		return nil, err
	}
	s := scan{
		x:      x,
		q:      q,
		m:      newMatcher(req.Filter),
		rank:   req.Ranking,
		now:    req.Now.UnixNano(),
		minSim: float32(req.MinSimilarity),
		limit:  req.Filter.Limit,
		prune:  req.Ranking.Similarity >= 0 && req.Ranking.Recency >= 0 && req.Ranking.Importance >= 0,
	}
	workers := min(runtime.GOMAXPROCS(0), len(x.blocks))
	if len(x.rows) < parallelRows || workers < 2 {
		t := s.run(0, len(x.blocks))
		return x.hits(t.sorted()), nil
	}
	tops := make([]topK, workers)
	var wg sync.WaitGroup
	per := (len(x.blocks) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(x.blocks))
		wg.Go(func() { tops[w] = s.run(lo, hi) })
	}
	wg.Wait()
	all := tops[0]
	for _, t := range tops[1:] {
		for _, c := range t.items {
			all.push(c)
		}
	}
	return x.hits(all.sorted()), nil
}

// query is a normalised query vector reduced to its non-zero dimensions.
type query struct {
	dims []int
	vals []float32
}

func (x *Index) prepare(v []float32) (query, error) {
	if x.dim == 0 || len(v) == 0 {
		return query{}, nil
	}
	if len(v) != x.dim {
		return query{}, fmt.Errorf("memory: query vector of length %d, store holds length %d: %w", len(v), x.dim, ErrDimension)
	}
	n := norm(v)
	var q query
	if n == 0 {
		return q, nil
	}
	for d, f := range v {
		if f != 0 {
			q.dims = append(q.dims, d)
			q.vals = append(q.vals, float32(float64(f)/n))
		}
	}
	return q, nil
}

// scan is one search over a range of blocks.
type scan struct {
	x      *Index
	q      query
	m      matcher
	rank   Ranking
	now    int64
	minSim float32
	limit  int
	prune  bool
}

func (s *scan) run(lo, hi int) topK {
	t := topK{limit: s.limit, rows: s.x.rows}
	var sims [blockRows]float32
	for b := lo; b < hi; b++ {
		base := b * blockRows
		n := min(blockRows, len(s.x.rows)-base)
		acc := sims[:n]
		clear(acc)
		if data := s.x.blocks[b]; data != nil {
			accumulate(acc, data, s.q)
		}
		for i, sim := range acc {
			if sim < s.minSim {
				continue
			}
			r := base + i
			row := &s.x.rows[r]
			if s.prune && t.full() && s.rank.bound(float64(sim), row.importance) < t.worst().score {
				continue
			}
			if !s.m.match(row) {
				continue
			}
			score, parts := s.rank.score(float64(sim), time.Duration(s.now-row.created), row.importance)
			t.push(candidate{row: r, score: score, parts: parts})
		}
	}
	return t
}

// accumulate adds the query's columns of a block into sims, eight
// columns per pass so each sims element is loaded and stored once per
// eight multiply-adds.
func accumulate(sims, data []float32, q query) {
	n := len(sims)
	i := 0
	for ; i+8 <= len(q.dims); i += 8 {
		c0 := data[q.dims[i]*blockRows:][:n]
		c1 := data[q.dims[i+1]*blockRows:][:n]
		c2 := data[q.dims[i+2]*blockRows:][:n]
		c3 := data[q.dims[i+3]*blockRows:][:n]
		c4 := data[q.dims[i+4]*blockRows:][:n]
		c5 := data[q.dims[i+5]*blockRows:][:n]
		c6 := data[q.dims[i+6]*blockRows:][:n]
		c7 := data[q.dims[i+7]*blockRows:][:n]
		v := q.vals[i : i+8 : i+8]
		v0, v1, v2, v3, v4, v5, v6, v7 := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		for r := range sims {
			sims[r] += v0*c0[r] + v1*c1[r] + v2*c2[r] + v3*c3[r] +
				v4*c4[r] + v5*c5[r] + v6*c6[r] + v7*c7[r]
		}
	}
	for ; i < len(q.dims); i++ {
		c := data[q.dims[i]*blockRows:][:n]
		v := q.vals[i]
		for r := range sims {
			sims[r] += v * c[r]
		}
	}
}

func (x *Index) hits(cs []candidate) []Hit {
	if len(cs) == 0 {
		return nil
	}
	out := make([]Hit, len(cs))
	for i, c := range cs {
		out[i] = Hit{ID: x.rows[c.row].id, Score: c.score, Parts: c.parts}
	}
	return out
}

type candidate struct {
	row   int
	score float64
	parts ScoreParts
}

// topK keeps the best limit candidates in a min-heap on (score, reversed
// ID), so the root is the one to evict; with no limit it keeps all.
type topK struct {
	limit int
	rows  []indexRow
	items []candidate
}

// worse orders a below b: lower score, or equal score and larger ID.
func (t *topK) worse(a, b candidate) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return t.rows[a.row].id > t.rows[b.row].id
}

func (t *topK) full() bool { return t.limit > 0 && len(t.items) >= t.limit }

func (t *topK) worst() candidate { return t.items[0] }

func (t *topK) push(c candidate) {
	if math.IsNaN(c.score) {
		return
	}
	if t.limit <= 0 {
		t.items = append(t.items, c)
		return
	}
	if len(t.items) < t.limit {
		t.items = append(t.items, c)
		t.up(len(t.items) - 1)
		return
	}
	if !t.worse(t.items[0], c) {
		return
	}
	t.items[0] = c
	t.down(0)
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.worse(t.items[i], t.items[p]) {
			return
		}
		t.items[i], t.items[p] = t.items[p], t.items[i]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && t.worse(t.items[r], t.items[l]) {
			m = r
		}
		if !t.worse(t.items[m], t.items[i]) {
			return
		}
		t.items[i], t.items[m] = t.items[m], t.items[i]
		i = m
	}
}

// sorted returns the candidates best first.
func (t *topK) sorted() []candidate {
	slices.SortFunc(t.items, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(t.rows[a.row].id, t.rows[b.row].id))
	})
	return t.items
}
