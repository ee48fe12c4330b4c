// Package sqlite keeps flow run snapshots in a SQLite database file, so runs
// can be restored, resumed after a pause and inspected after the process
// ends.
//
// It uses modernc.org/sqlite (pure Go, no cgo). The file is opened in WAL
// mode with a busy timeout, so many goroutines and several processes on one
// machine can share it: readers never wait, and writers wait their turn
// instead of failing. Open checks the whole file (PRAGMA quick_check) and
// refuses a damaged one. Snapshots of running runs survive a crash of the
// process; pauses and final statuses are synced to the disk before Save
// returns.
//
// Start with [Open] (sqlite.go), then snapshot.go and claim.go.
//
// It imports store, store/internal/payload and the SQLite driver only; it
// must not import flow or cel-go.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/troupe-dev/troupe/store"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DefaultPath is where the troupe command keeps run snapshots, relative to
// the working folder.
const DefaultPath = ".troupe/flows.db"

// busyTimeout is how long a write waits for another connection's write,
// in milliseconds.
const busyTimeout = 10000

// schema is the store's tables: the snapshots and the runs' leases.
// updated_at and until are UTC text of fixed width, so they sort as the
// instants do.
const schema = `
CREATE TABLE IF NOT EXISTS flow_snapshots (
	flow_id         TEXT PRIMARY KEY,
	flow            TEXT NOT NULL,
	status          TEXT NOT NULL,
	method          TEXT NOT NULL,
	definition_hash TEXT NOT NULL,
	data            TEXT NOT NULL,
	updated_at      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS flow_snapshots_updated_at ON flow_snapshots (updated_at DESC);
CREATE INDEX IF NOT EXISTS flow_snapshots_status ON flow_snapshots (status, updated_at DESC);
CREATE INDEX IF NOT EXISTS flow_snapshots_flow ON flow_snapshots (flow, updated_at DESC);
CREATE TABLE IF NOT EXISTS flow_claims (
	flow_id TEXT PRIMARY KEY,
	owner   TEXT NOT NULL,
	until   TEXT NOT NULL
);
`

// Store is a store.Store on a SQLite file. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	// write lets one Save or Delete of this Store at a time reach SQLite,
	// so goroutines queue here rather than spin in SQLite's busy handler;
	// other processes are still kept apart by the busy timeout.
	write   chan struct{}
	save    *sql.Stmt
	load    *sql.Stmt
	del     *sql.Stmt
	claim   *sql.Stmt
	release *sql.Stmt
}

var _ store.Store = (*Store)(nil)

// Open opens the database file at path, creating it, its parent folders and
// the schema when missing. The path ":memory:" gives a private in-memory
// database.
func Open(path string) (*Store, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is Open with a context for creating the schema.
func OpenContext(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	memory := path == ":memory:"
	if !memory {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: create the folder of %s: %w", path, err)
		}
	}
	dsn := fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)",
		path, busyTimeout)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if memory {
		// Each connection to ":memory:" is a database of its own.
		db.SetMaxOpenConns(1)
	}
	s := &Store{db: db, path: path, write: make(chan struct{}, 1)}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) prepare(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if err := s.Check(ctx); err != nil {
		return err
	}
	var err error
	if s.save, err = s.db.PrepareContext(ctx, saveSQL); err != nil {
		return err
	}
	if s.load, err = s.db.PrepareContext(ctx, loadSQL); err != nil {
		return err
	}
	if s.del, err = s.db.PrepareContext(ctx, deleteSQL); err != nil {
		return err
	}
	if s.claim, err = s.db.PrepareContext(ctx, claimSQL); err != nil {
		return err
	}
	s.release, err = s.db.PrepareContext(ctx, releaseSQL)
	return err
}

// maxProblems caps the problems of a damaged file an error lists.
const maxProblems = 5

// Check reads the whole file (SQLite's PRAGMA quick_check) and reports
// damage: pages that are not what their b-trees say, rows missing from an
// index. Open checks every file it opens, so a damaged file fails before
// any run relies on it; the time it takes grows with the file's size.
func (s *Store) Check(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "PRAGMA quick_check("+fmt.Sprint(maxProblems)+")")
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("check: the database is damaged: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Path returns the path the store was opened with.
func (s *Store) Path() string { return s.path }

// Close closes the database. Calls after the first do nothing.
func (s *Store) Close() error {
	err := errors.Join(s.save.Close(), s.load.Close(), s.del.Close(), s.claim.Close(), s.release.Close(), s.db.Close())
	if err != nil {
		return fmt.Errorf("sqlite: close %s: %w", s.path, err)
	}
	return nil
}
