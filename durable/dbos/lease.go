package dbos

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// LeaseOptions configure a worker's executor lease; see [StartLease].
type LeaseOptions struct {
	// DatabaseURL is the DBOS system database (postgres://... or
	// sqlite:///file.db); SQLite needs DBOS's SQLite driver imported
	// (github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite).
	DatabaseURL string
	// Schema holds the lease tables on PostgreSQL ("troupe" when empty);
	// on SQLite it prefixes their names.
	Schema string
	// TTL is how long a lease lasts unless renewed (30s when zero);
	// SweepInterval how often it is renewed and expired leases are looked
	// for (TTL/3 when zero).
	TTL, SweepInterval time.Duration
	// Logger receives takeovers and errors (slog.Default() when nil).
	Logger *slog.Logger
}

// A Lease keeps a worker's executor lease alive and, on the one worker
// that leads, sweeps: it resumes the pending workflows of executors whose
// lease expired, so that a live worker takes them over.
type Lease struct {
	db       *leaseDB
	dctx     transact.Client
	executor string
	ttl      time.Duration
	every    time.Duration
	log      *slog.Logger
	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
}

// StartLease creates the lease tables if needed, takes the lease of dctx's
// executor and renews it every SweepInterval until ctx ends or Stop is
// called. Every worker that starts a lease also takes part in electing
// the sweeper (a row in the same database, timed by the database's
// clock): no control plane is needed for another machine to take over.
func StartLease(ctx context.Context, dctx transact.Context, o LeaseOptions) (*Lease, error) {
	if dctx == nil {
		return nil, errors.New("dbos: no DBOS context")
	}
	if o.TTL <= 0 {
		o.TTL = 30 * time.Second
	}
	if o.SweepInterval <= 0 {
		o.SweepInterval = o.TTL / 3
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	db, err := openLeaseDB(ctx, o.DatabaseURL, o.Schema)
	if err != nil {
		return nil, err
	}
	l := &Lease{db: db, dctx: dctx, executor: transact.GetExecutorID(dctx), ttl: o.TTL, every: o.SweepInterval,
		log: o.Logger, done: make(chan struct{})}
	if err := db.renew(ctx, l.executor, l.ttl); err != nil {
		db.Close()
		return nil, err
	}
	ctx, l.cancel = context.WithCancel(ctx)
	go l.loop(ctx)
	return l, nil
}

// Stop stops renewing the lease (it expires after TTL, and the worker's
// pending runs are then taken over unless it comes back under the same
// executor id first) and closes the lease's database connection.
func (l *Lease) Stop() {
	l.stopOnce.Do(func() {
		l.cancel()
		<-l.done
		l.db.Close()
	})
}

func (l *Lease) loop(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := l.db.renew(ctx, l.executor, l.ttl); err != nil {
			l.log.Warn("troupe: renew the executor lease", "executor", l.executor, "err", err)
			continue
		}
		lead, err := l.db.lead(ctx, l.executor, l.ttl)
		if err != nil {
			l.log.Warn("troupe: elect the sweeper", "executor", l.executor, "err", err)
			continue
		}
		if lead {
			if err := l.sweep(ctx); err != nil && ctx.Err() == nil {
				l.log.Warn("troupe: sweep expired executors", "executor", l.executor, "err", err)
			}
		}
	}
}

// leaseDB is the lease tables on PostgreSQL or SQLite, through
// database/sql, with times in milliseconds of the database's clock.
type leaseDB struct {
	*sql.DB
	leases, leader string // table names
	leaderRef      string // how an upsert's WHERE names the leader row
	now            string // the database's clock in epoch milliseconds
}

func openLeaseDB(ctx context.Context, dbURL, schema string) (*leaseDB, error) {
	if schema == "" {
		schema = "troupe"
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, fmt.Errorf("dbos: lease database: %w", err)
	}
	l := &leaseDB{}
	var ddl []string
	switch strings.ToLower(u.Scheme) {
	case "postgres", "postgresql":
		l.DB, err = sql.Open("pgx", dbURL)
		q := `"` + strings.ReplaceAll(schema, `"`, `""`) + `"`
		l.leases, l.leader, l.leaderRef = q+".executor_leases", q+".sweeper_leader AS l", "l"
		l.now = "(extract(epoch from clock_timestamp()) * 1000)::bigint"
		ddl = []string{"CREATE SCHEMA IF NOT EXISTS " + q}
	case "sqlite", "sqlite3":
		path := u.Opaque
		if path == "" {
			path = u.Path
		}
		l.DB, err = sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
		prefix := strings.Map(func(r rune) rune {
			if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, schema) + "_"
		l.leases, l.leader, l.leaderRef = prefix+"executor_leases", prefix+"sweeper_leader", prefix+"sweeper_leader"
		l.now = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
	default:
		return nil, fmt.Errorf("dbos: lease database: unsupported scheme %q (want postgres: or sqlite:)", u.Scheme)
	}
	if err != nil {
		return nil, fmt.Errorf("dbos: lease database: %w", err)
	}
	leaderTable, _, _ := strings.Cut(l.leader, " AS ")
	ddl = append(ddl,
		"CREATE TABLE IF NOT EXISTS "+l.leases+" (executor_id TEXT PRIMARY KEY, expires_at_ms BIGINT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS "+leaderTable+" (id INTEGER PRIMARY KEY, holder TEXT NOT NULL, expires_at_ms BIGINT NOT NULL)")
	for _, s := range ddl {
		if _, err := l.ExecContext(ctx, s); err != nil {
			l.Close()
			return nil, fmt.Errorf("dbos: create the lease tables: %w", err)
		}
	}
	return l, nil
}

// renew takes or extends executor's lease by ttl.
func (l *leaseDB) renew(ctx context.Context, executor string, ttl time.Duration) error {
	_, err := l.ExecContext(ctx, "INSERT INTO "+l.leases+" (executor_id, expires_at_ms) VALUES ($1, "+l.now+" + $2) "+
		"ON CONFLICT (executor_id) DO UPDATE SET expires_at_ms = excluded.expires_at_ms", executor, ttl.Milliseconds())
	if err != nil {
		return fmt.Errorf("dbos: renew the lease of %s: %w", executor, err)
	}
	return nil
}

// lead takes or keeps the sweeper's role for ttl and reports whether
// executor holds it.
func (l *leaseDB) lead(ctx context.Context, executor string, ttl time.Duration) (bool, error) {
	r := l.leaderRef
	res, err := l.ExecContext(ctx, "INSERT INTO "+l.leader+" (id, holder, expires_at_ms) VALUES (1, $1, "+l.now+" + $2) "+
		"ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires_at_ms = excluded.expires_at_ms "+
		"WHERE "+r+".holder = excluded.holder OR "+r+".expires_at_ms < "+l.now, executor, ttl.Milliseconds())
	if err != nil {
		return false, fmt.Errorf("dbos: elect the sweeper: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// expired lists the executors other than self whose lease has expired.
func (l *leaseDB) expired(ctx context.Context, self string) ([]string, error) {
	rows, err := l.QueryContext(ctx, "SELECT executor_id FROM "+l.leases+" WHERE expires_at_ms < "+l.now+" AND executor_id <> $1", self)
	if err != nil {
		return nil, fmt.Errorf("dbos: list expired leases: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("dbos: list expired leases: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// release drops executor's lease if it is still expired (it did not come
// back meanwhile).
func (l *leaseDB) release(ctx context.Context, executor string) error {
	_, err := l.ExecContext(ctx, "DELETE FROM "+l.leases+" WHERE executor_id = $1 AND expires_at_ms < "+l.now, executor)
	if err != nil {
		return fmt.Errorf("dbos: release the lease of %s: %w", executor, err)
	}
	return nil
}
