// Package sqlite is a memory.Store in a SQLite file that survives
// restarts, on the pure-Go modernc.org/sqlite driver (no cgo).
//
// At Open the store loads every record's vector and filter fields into a
// memory.Index and keeps it in step with each write, so searches cost no
// SQL beyond fetching the records they return. One process should own a
// database file at a time: another process's writes do not reach this
// process's index until it reopens the file.
//
// It imports memory, internal packages and the SQLite driver only; it must
// not import flow or action.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/troupe-dev/troupe/memory"
)

// Store is a memory.Store in a SQLite database. It is safe for concurrent
// use by several goroutines.
type Store struct {
	db     *sql.DB
	index  *memory.Index
	mu     sync.Mutex // serialises writes so the index follows the table
	closed atomic.Bool
}

var _ memory.Store = (*Store)(nil)

const schema = `
CREATE TABLE IF NOT EXISTS memory_records (
	id         TEXT PRIMARY KEY,
	content    TEXT NOT NULL,
	scope      TEXT NOT NULL,
	categories TEXT,    -- JSON array of strings, NULL for none
	importance REAL NOT NULL,
	created_at INTEGER, -- Unix nanoseconds, NULL for the zero time
	updated_at INTEGER,
	metadata   TEXT,    -- JSON object, NULL for none
	embedding  BLOB     -- little-endian float32, NULL for none
);
CREATE INDEX IF NOT EXISTS memory_records_scope ON memory_records(scope);
PRAGMA user_version = 1;
`

// Open opens (creating when needed) the database file at path and loads
// its index; see OpenContext.
func Open(path string) (*Store, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext opens (creating when needed) the database file at path in
// WAL mode with a 5-second busy timeout, creates the schema and loads the
// index.
func OpenContext(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	dsn := path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s := &Store{db: db, index: memory.NewIndex()}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: create schema in %s: %w", path, err)
	}
	if err := s.load(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: load %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// Len reports the number of records.
func (s *Store) Len() int { return s.index.Len() }

func (s *Store) check(ctx context.Context) error {
	if s.closed.Load() {
		return memory.ErrClosed
	}
	return ctx.Err()
}

// Put implements memory.Store.
func (s *Store) Put(ctx context.Context, records ...memory.Record) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	rows := make([]row, len(records))
	entries := make([]memory.IndexEntry, len(records))
	vecs := make([][]float32, len(records))
	for i, r := range records {
		c, err := memory.CopyRecord(r)
		if err != nil {
			return err
		}
		if rows[i], err = encode(c); err != nil {
			return err
		}
		entries[i], vecs[i] = memory.EntryOf(c), c.Embedding
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.index.CheckDim(vecs...); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO memory_records
			(id, content, scope, categories, importance, created_at, updated_at, metadata, embedding)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET content = excluded.content, scope = excluded.scope,
				categories = excluded.categories, importance = excluded.importance,
				created_at = excluded.created_at, updated_at = excluded.updated_at,
				metadata = excluded.metadata, embedding = excluded.embedding`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, r := range rows {
			if _, err := stmt.ExecContext(ctx, r.args()...); err != nil {
				return fmt.Errorf("record %q: %w", r.id, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: put: %w", err)
	}
	return s.index.Upsert(entries...)
}

// Get implements memory.Store.
func (s *Store) Get(ctx context.Context, id string) (memory.Record, error) {
	if err := s.check(ctx); err != nil {
		return memory.Record{}, err
	}
	recs, err := s.fetch(ctx, []string{id})
	if err != nil {
		return memory.Record{}, err
	}
	if len(recs) == 0 {
		return memory.Record{}, fmt.Errorf("sqlite: record %q: %w", id, memory.ErrNotFound)
	}
	return recs[0], nil
}

// Delete implements memory.Store.
func (s *Store) Delete(ctx context.Context, ids ...string) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delete(ctx, ids)
}

// DeleteScope implements memory.Store.
func (s *Store) DeleteScope(ctx context.Context, scope string) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delete(ctx, s.index.Filter(memory.Filter{Scope: scope}))
}

// delete removes ids from the table, then from the index; s.mu is held.
func (s *Store) delete(ctx context.Context, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	n := int64(0)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for chunk := range chunks(ids) {
			res, err := tx.ExecContext(ctx, "DELETE FROM memory_records WHERE id IN ("+placeholders(len(chunk))+")", anys(chunk)...)
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += k
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete: %w", err)
	}
	s.index.Remove(ids...)
	return int(n), nil
}

// List implements memory.Store.
func (s *Store) List(ctx context.Context, f memory.Filter) ([]memory.Record, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	ids := s.index.Filter(f)
	recs, err := s.fetch(ctx, ids)
	if err != nil {
		return nil, err
	}
	return inOrder(ids, recs), nil
}

// Search implements memory.Store.
func (s *Store) Search(ctx context.Context, req memory.SearchRequest) ([]memory.Match, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	hits, err := s.index.Search(req)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	recs, err := s.fetch(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*memory.Record, len(recs))
	for i := range recs {
		byID[recs[i].ID] = &recs[i]
	}
	out := make([]memory.Match, 0, len(hits))
	for _, h := range hits {
		if r, ok := byID[h.ID]; ok { // deleted since the index was read: skip
			out = append(out, memory.Match{Record: *r, Score: h.Score, Parts: h.Parts})
		}
	}
	return out, nil
}

// inTx runs fn in a transaction, committing when it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}
