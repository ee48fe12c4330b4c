package memory

import (
	"context"
	"errors"
	"fmt"
)

// A Store keeps records. Implementations must be safe for concurrent use
// and must pass the conformance suite in memory/memorytest.
type Store interface {
	// Put inserts records, replacing any with the same ID. Every embedding
	// in a store has the same length; Put rejects others with an error
	// wrapping ErrDimension.
	Put(ctx context.Context, records ...Record) error
	// Get returns the record with the given ID, or an error wrapping
	// ErrNotFound.
	Get(ctx context.Context, id string) (Record, error)
	// Delete removes the records with the given IDs and reports how many
	// existed.
	Delete(ctx context.Context, ids ...string) (int, error)
	// DeleteScope removes every record within scope (see InScope) and
	// reports how many there were.
	DeleteScope(ctx context.Context, scope string) (int, error)
	// List returns the records matching f, oldest first (ties by ID).
	List(ctx context.Context, f Filter) ([]Record, error)
	// Search returns the records matching req.Filter whose similarity to
	// req.Vector is at least req.MinSimilarity, best first: by score under
	// req.Ranking, ties by ID. Records without an embedding have similarity 0.
	Search(ctx context.Context, req SearchRequest) ([]Match, error)
	// Close releases the store's resources.
	Close() error
}

// ErrNotFound is wrapped by errors for records that do not exist.
var ErrNotFound = errors.New("memory: record not found")

// ErrDimension is wrapped by errors for vectors whose length differs from
// the store's.
var ErrDimension = errors.New("memory: embedding dimension mismatch")

// ErrClosed is wrapped by errors from a store used after Close.
var ErrClosed = errors.New("memory: store is closed")

func notFound(id string) error {
	return fmt.Errorf("memory: record %q: %w", id, ErrNotFound)
}
