package memory

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// blockRows is the number of rows whose vectors are stored together,
// column by column. A block's similarity accumulator (4 KiB) stays in L1
// while the query's non-zero dimensions are added in; sparse queries (the
// lexical embedder's) touch only their own columns.
const blockRows = 1024

// An IndexEntry is what an Index keeps of a record: what filters and
// ranking need, and the vector.
type IndexEntry struct {
	ID         string
	Scope      string
	Categories []string
	CreatedAt  time.Time
	Importance float64
	// Vector may be nil: the entry is then found by filters only and has
	// similarity 0 in searches.
	Vector []float32
}

// An Index holds record vectors and the metadata searches filter on, for
// brute-force cosine search in memory. It is the engine of the in-memory
// store and the mirror the SQLite store loads at open; other stores may use
// it too. An Index is safe for concurrent use.
type Index struct {
	mu     sync.RWMutex
	dim    int
	rows   []indexRow
	pos    map[string]int
	blocks [][]float32 // blocks[b][d*blockRows+r] is dimension d of row b*blockRows+r
}

type indexRow struct {
	id         string
	scope      string
	categories []string
	created    int64 // Unix nanoseconds
	importance float64
}

// NewIndex returns an empty Index.
func NewIndex() *Index {
	return &Index{pos: make(map[string]int)}
}

// Len reports the number of entries.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.rows)
}

// Dim reports the vector length, 0 until the first vector arrives.
func (x *Index) Dim() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.dim
}

// CheckDim returns an error wrapping ErrDimension unless every non-empty
// vector has the index's length (or, in an index without vectors yet, the
// same length as the others).
func (x *Index) CheckDim(vectors ...[]float32) error {
	x.mu.RLock()
	dim := x.dim
	x.mu.RUnlock()
	_, err := checkDim(dim, vectors...)
	return err
}

func checkDim(dim int, vectors ...[]float32) (int, error) {
	for _, v := range vectors {
		if len(v) == 0 {
			continue
		}
		if dim == 0 {
			dim = len(v)
		}
		if len(v) != dim {
			return dim, fmt.Errorf("memory: vector of length %d, store holds length %d: %w", len(v), dim, ErrDimension)
		}
	}
	return dim, nil
}

// Upsert adds entries, replacing those with the same ID. Vectors are
// normalised on the way in. Either all entries are applied or, on a
// dimension mismatch, none.
func (x *Index) Upsert(entries ...IndexEntry) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	vecs := make([][]float32, len(entries))
	for i := range entries {
		vecs[i] = entries[i].Vector
	}
	dim, err := checkDim(x.dim, vecs...)
	if err != nil {
		return err
	}
	if dim != x.dim {
		x.dim = dim
		for b := range x.blocks {
			x.blocks[b] = make([]float32, dim*blockRows)
		}
	}
	for _, e := range entries {
		row := indexRow{
			id:         e.ID,
			scope:      CleanScope(e.Scope),
			categories: slices.Clone(e.Categories),
			created:    e.CreatedAt.UnixNano(),
			importance: e.Importance,
		}
		r, ok := x.pos[e.ID]
		if !ok {
			r = len(x.rows)
			x.rows = append(x.rows, row)
			x.pos[e.ID] = r
			if r/blockRows == len(x.blocks) {
				var data []float32
				if x.dim > 0 {
					data = make([]float32, x.dim*blockRows)
				}
				x.blocks = append(x.blocks, data)
			}
		} else {
			x.rows[r] = row
		}
		x.setVector(r, e.Vector)
	}
	return nil
}

// setVector writes the normalised v (zeros for an empty or zero v) into row r.
func (x *Index) setVector(r int, v []float32) {
	if x.dim == 0 {
		return
	}
	data, off := x.blocks[r/blockRows], r%blockRows
	scale := float32(0)
	if len(v) > 0 {
		if n := norm(v); n > 0 {
			scale = float32(1 / n)
		}
	}
	for d := range x.dim {
		val := float32(0)
		if scale != 0 {
			val = v[d] * scale
		}
		data[d*blockRows+off] = val
	}
}

// Remove deletes the entries with the given IDs and reports how many existed.
func (x *Index) Remove(ids ...string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, id := range ids {
		r, ok := x.pos[id]
		if !ok {
			continue
		}
		n++
		delete(x.pos, id)
		last := len(x.rows) - 1
		if r != last {
			x.rows[r] = x.rows[last]
			x.pos[x.rows[r].id] = r
			x.moveVector(last, r)
		}
		x.rows[last] = indexRow{}
		x.rows = x.rows[:last]
		if last%blockRows == 0 {
			x.blocks[len(x.blocks)-1] = nil
			x.blocks = x.blocks[:len(x.blocks)-1]
		}
	}
	return n
}

func (x *Index) moveVector(from, to int) {
	if x.dim == 0 {
		return
	}
	src, so := x.blocks[from/blockRows], from%blockRows
	dst, do := x.blocks[to/blockRows], to%blockRows
	for d := range x.dim {
		dst[d*blockRows+do] = src[d*blockRows+so]
	}
}

// Filter returns the IDs of the entries matching f, oldest first, ties by ID.
func (x *Index) Filter(f Filter) []string {
	m := newMatcher(f)
	x.mu.RLock()
	picked := make([]int, 0, min(len(x.rows), 256))
	for r := range x.rows {
		if m.match(&x.rows[r]) {
			picked = append(picked, r)
		}
	}
	slices.SortFunc(picked, func(a, b int) int {
		ra, rb := &x.rows[a], &x.rows[b]
		return cmp.Or(cmp.Compare(ra.created, rb.created), cmp.Compare(ra.id, rb.id))
	})
	if f.Limit > 0 && len(picked) > f.Limit {
		picked = picked[:f.Limit]
	}
	ids := make([]string, len(picked))
	for i, r := range picked {
		ids[i] = x.rows[r].id
	}
	x.mu.RUnlock()
	return ids
}

// matcher is a Filter prepared for matching many rows.
type matcher struct {
	scope      string
	categories []string
	since      int64
	all        bool
}

func newMatcher(f Filter) matcher {
	m := matcher{scope: CleanScope(f.Scope), categories: f.Categories, since: math.MinInt64}
	if !f.Since.IsZero() {
		m.since = f.Since.UnixNano()
	}
	m.all = m.scope == "/" && len(m.categories) == 0 && f.Since.IsZero()
	return m
}

func (m *matcher) match(r *indexRow) bool {
	if m.all {
		return true
	}
	if r.created < m.since || !InScope(r.scope, m.scope) {
		return false
	}
	if len(m.categories) == 0 {
		return true
	}
	for _, c := range r.categories {
		if slices.Contains(m.categories, c) {
			return true
		}
	}
	return false
}

// norm is the Euclidean length of v, summed in float64.
func norm(v []float32) float64 {
	s := 0.0
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return math.Sqrt(s)
}

// Normalize scales v in place to unit length; a zero vector stays zero.
func Normalize(v []float32) {
	n := norm(v)
	if n == 0 {
		return
	}
	inv := 1 / n
	for i, f := range v {
		v[i] = float32(float64(f) * inv)
	}
}

// Cosine is the cosine similarity of a and b, 0 when either is zero or
// their lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	dot := 0.0
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	na, nb := norm(a), norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (na * nb)
}
