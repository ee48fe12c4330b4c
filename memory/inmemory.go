package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// InMemoryStore is a Store that lives in process memory and is gone when
// the process ends. It is safe for concurrent use.
type InMemoryStore struct {
	mu      sync.RWMutex
	records map[string]Record
	index   *Index
	closed  bool
}

var _ Store = (*InMemoryStore)(nil)

// NewInMemoryStore returns an empty in-memory store.
func NewInMemoryStore() *InMemoryStore {
	return &InMemoryStore{records: make(map[string]Record), index: NewIndex()}
}

// Put implements Store.
func (s *InMemoryStore) Put(ctx context.Context, records ...Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	copies := make([]Record, len(records))
	entries := make([]IndexEntry, len(records))
	for i, r := range records {
		c, err := CopyRecord(r)
		if err != nil {
			return err
		}
		copies[i], entries[i] = c, EntryOf(c)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.index.Upsert(entries...); err != nil {
		return err
	}
	for _, c := range copies {
		s.records[c.ID] = c
	}
	return nil
}

// Get implements Store.
func (s *InMemoryStore) Get(ctx context.Context, id string) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return Record{}, ErrClosed
	}
	r, ok := s.records[id]
	if !ok {
		return Record{}, notFound(id)
	}
	return cloneRecord(r), nil
}

// Delete implements Store.
func (s *InMemoryStore) Delete(ctx context.Context, ids ...string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	for _, id := range ids {
		delete(s.records, id)
	}
	return s.index.Remove(ids...), nil
}

// DeleteScope implements Store.
func (s *InMemoryStore) DeleteScope(ctx context.Context, scope string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	ids := s.index.Filter(Filter{Scope: scope})
	for _, id := range ids {
		delete(s.records, id)
	}
	return s.index.Remove(ids...), nil
}

// List implements Store.
func (s *InMemoryStore) List(ctx context.Context, f Filter) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	ids := s.index.Filter(f)
	out := make([]Record, len(ids))
	for i, id := range ids {
		out[i] = cloneRecord(s.records[id])
	}
	return out, nil
}

// Search implements Store.
func (s *InMemoryStore) Search(ctx context.Context, req SearchRequest) ([]Match, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	hits, err := s.index.Search(req)
	if err != nil {
		return nil, err
	}
	out := make([]Match, len(hits))
	for i, h := range hits {
		out[i] = Match{Record: cloneRecord(s.records[h.ID]), Score: h.Score, Parts: h.Parts}
	}
	return out, nil
}

// Close implements Store; the records are dropped.
func (s *InMemoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.records = nil
	s.index = NewIndex()
	return nil
}

// CopyRecord checks r for what every store requires (an ID, importance in
// [0, 1], JSON metadata) and returns a deep copy with a clean scope,
// canonical metadata, and nil for empty categories and embedding. Stores
// call it in Put.
func CopyRecord(r Record) (Record, error) {
	if r.ID == "" {
		return Record{}, errors.New("memory: record has no ID")
	}
	if !(r.Importance >= 0 && r.Importance <= 1) {
		return Record{}, fmt.Errorf("memory: record %q: importance %v outside [0, 1]", r.ID, r.Importance)
	}
	md, err := jsondata.CloneMap(r.Metadata)
	if err != nil {
		return Record{}, fmt.Errorf("memory: record %q: metadata: %w", r.ID, err)
	}
	c := r
	c.Scope = CleanScope(r.Scope)
	c.Categories, c.Embedding = nil, nil
	if len(r.Categories) > 0 {
		c.Categories = slices.Clone(r.Categories)
	}
	if len(r.Embedding) > 0 {
		c.Embedding = slices.Clone(r.Embedding)
	}
	c.Metadata = md
	return c, nil
}

// cloneRecord copies a record already made canonical by CopyRecord.
func cloneRecord(r Record) Record {
	r.Categories = slices.Clone(r.Categories)
	r.Embedding = slices.Clone(r.Embedding)
	if r.Metadata != nil {
		md, _ := jsondata.CloneMap(r.Metadata) // canonical already: cannot fail
		r.Metadata = md
	}
	return r
}

// EntryOf is the IndexEntry of a record.
func EntryOf(r Record) IndexEntry {
	return IndexEntry{
		ID:         r.ID,
		Scope:      r.Scope,
		Categories: r.Categories,
		CreatedAt:  r.CreatedAt,
		Importance: r.Importance,
		Vector:     r.Embedding,
	}
}
