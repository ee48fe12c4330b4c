// Package postgres keeps flow run snapshots in PostgreSQL, so runs can be
// restored and resumed by any process that reaches the database.
//
// Snapshots live in the table troupe_flow_snapshots and the runs' leases
// in troupe_flow_claims, both created on Open when missing, in the first
// schema of the connection's search_path. The state,
// outputs, journal and feedback of a run are one jsonb column; PostgreSQL
// keeps a number's text (1.0 stays 1.0), so integers and floats come back
// with their types. Update times are kept to the microsecond.
//
// Start with [Open] (postgres.go), then snapshot.go and claim.go.
//
// It imports store, store/internal/payload and pgx only; it must not import
// flow or cel-go.
package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/troupe-dev/troupe/store"
)

// schemaLock is the advisory lock key taken while creating the table, so
// processes opening a new database at once do not race.
const schemaLock = 0x7472_6f75_7065 // "troupe"

const schema = `
CREATE TABLE IF NOT EXISTS troupe_flow_snapshots (
	flow_id         text PRIMARY KEY,
	flow            text NOT NULL,
	status          text NOT NULL,
	method          text NOT NULL,
	definition_hash text NOT NULL,
	data            jsonb NOT NULL,
	updated_at      timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS troupe_flow_snapshots_updated_at ON troupe_flow_snapshots (updated_at DESC);
CREATE INDEX IF NOT EXISTS troupe_flow_snapshots_status ON troupe_flow_snapshots (status, updated_at DESC);
CREATE INDEX IF NOT EXISTS troupe_flow_snapshots_flow ON troupe_flow_snapshots (flow, updated_at DESC);
CREATE TABLE IF NOT EXISTS troupe_flow_claims (
	flow_id text PRIMARY KEY,
	owner   text NOT NULL,
	until   timestamptz NOT NULL
);
`

// Store is a store.Store on a PostgreSQL connection pool. It is safe for
// concurrent use.
type Store struct {
	pool *pgxpool.Pool
}

var _ store.Store = (*Store)(nil)

// Open connects to the database named by dsn (a URL such as
// "postgres://user:pass@host:5432/db?sslmode=disable" or "key=value"
// text, as pgx reads it), checks that it answers and creates the table when
// missing. Close the Store when done.
func Open(ctx context.Context, dsn string) (*Store, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if err := createSchema(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	return &Store{pool: pool}, nil
}

func createSchema(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(schemaLock)); err != nil {
		return fmt.Errorf("lock for the schema: %w", err)
	}
	if _, err := tx.Exec(ctx, schema); err != nil {
		return fmt.Errorf("create the table: %w", err)
	}
	return tx.Commit(ctx)
}

// Close closes the connections, waiting for those in use to be returned.
// It always returns nil; the error is there for io.Closer.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}
