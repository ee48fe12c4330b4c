package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// A Query asks Recall for records.
type Query struct {
	// Text is what to look for; empty ranks by recency and importance only.
	Text string
	// Scope is relative to the Memory's root; empty means the root.
	Scope string
	// Categories keeps records with at least one of them; empty keeps all.
	Categories []string
	// Since keeps records created at or after it; zero keeps all.
	Since time.Time
	// Limit caps the results; zero means DefaultRecallLimit.
	Limit int
	// MinSimilarity drops records less similar than this (see
	// SearchRequest.MinSimilarity).
	MinSimilarity float64
}

// DefaultRecallLimit is the number of results of a Query without a Limit.
const DefaultRecallLimit = 10

// Recall returns the records best matching q, best first, scored by the
// Memory's Ranking, with the score parts. Recall makes no Model call; it
// embeds the query text once.
func (m *Memory) Recall(ctx context.Context, q Query) ([]Match, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultRecallLimit
	}
	var vec []float32
	if text := strings.TrimSpace(q.Text); text != "" {
		vecs, err := m.embed(ctx, []string{text})
		if err != nil {
			return nil, fmt.Errorf("memory: recall: %w", err)
		}
		vec = vecs[0]
	}
	matches, err := m.store.Search(ctx, SearchRequest{
		Vector:        vec,
		Filter:        Filter{Scope: m.scope(q.Scope), Categories: q.Categories, Since: q.Since, Limit: limit},
		MinSimilarity: q.MinSimilarity,
		Ranking:       m.opts.Ranking,
		Now:           m.now(),
	})
	if err != nil {
		return nil, fmt.Errorf("memory: recall: %w", err)
	}
	return matches, nil
}

// Get returns the record with the given ID if it lies within the root;
// otherwise the error wraps ErrNotFound.
func (m *Memory) Get(ctx context.Context, id string) (Record, error) {
	r, err := m.store.Get(ctx, id)
	if err != nil {
		return Record{}, err
	}
	if !InScope(r.Scope, m.root) {
		return Record{}, notFound(id)
	}
	return r, nil
}

// List returns the records matching f, oldest first, with f.Scope relative
// to the root.
func (m *Memory) List(ctx context.Context, f Filter) ([]Record, error) {
	f.Scope = m.scope(f.Scope)
	return m.store.List(ctx, f)
}

// Forget deletes the records with the given IDs that lie within the root
// and reports how many it deleted.
func (m *Memory) Forget(ctx context.Context, ids ...string) (int, error) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	if m.root != "/" {
		kept := ids[:0:0]
		for _, id := range ids {
			if _, err := m.Get(ctx, id); err == nil {
				kept = append(kept, id)
			}
		}
		ids = kept
	}
	n, err := m.store.Delete(ctx, ids...)
	if err != nil {
		return n, fmt.Errorf("memory: forget: %w", err)
	}
	return n, nil
}

// ForgetScope deletes every record within scope (relative to the root)
// and reports how many it deleted.
func (m *Memory) ForgetScope(ctx context.Context, scope string) (int, error) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	n, err := m.store.DeleteScope(ctx, m.scope(scope))
	if err != nil {
		return n, fmt.Errorf("memory: forget scope: %w", err)
	}
	return n, nil
}
