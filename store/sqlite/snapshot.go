package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/internal/payload"
)

// timeLayout writes UTC instants with a fixed width, so text order is time
// order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

const (
	columns = "flow_id, flow, status, method, definition_hash, data, updated_at"
	saveSQL = `INSERT INTO flow_snapshots (` + columns + `) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (flow_id) DO UPDATE SET flow = excluded.flow, status = excluded.status,
	method = excluded.method, definition_hash = excluded.definition_hash,
	data = excluded.data, updated_at = excluded.updated_at`
	loadSQL   = `SELECT ` + columns + ` FROM flow_snapshots WHERE flow_id = ?`
	deleteSQL = `DELETE FROM flow_snapshots WHERE flow_id = ?`
)

// Save implements store.Store. A zero UpdatedAt is recorded as the time of
// the save.
//
// A snapshot of a running run is committed to the write-ahead log, which
// survives a crash of the process; any other (a pause, a run's final
// status, which the caller reports to a person) is also synced to the
// disk before Save returns, so it survives a power cut too.
func (s *Store) Save(ctx context.Context, snap *store.Snapshot) error {
	if err := payload.Check(snap); err != nil {
		return fmt.Errorf("sqlite: save: %w", err)
	}
	data, err := payload.Encode(make([]byte, 0, 1024), snap)
	if err != nil {
		return fmt.Errorf("sqlite: save %q: %w", snap.FlowID, err)
	}
	at := payload.UpdatedAt(snap).Format(timeLayout)
	if err := s.lock(ctx); err != nil {
		return fmt.Errorf("sqlite: save %q: %w", snap.FlowID, err)
	}
	defer s.unlock()
	args := []any{snap.FlowID, snap.Flow, string(snap.Status), snap.Method, snap.DefinitionHash, string(data), at}
	if snap.Status == store.StatusRunning {
		_, err = s.save.ExecContext(ctx, args...)
	} else {
		err = s.saveSynced(ctx, args)
	}
	if err != nil {
		return fmt.Errorf("sqlite: save %q: %w", snap.FlowID, err)
	}
	return nil
}

// saveSynced runs saveSQL on a connection that syncs its commit to the
// disk (synchronous FULL, for this statement only).
func (s *Store) saveSynced(ctx context.Context, args []any) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = FULL"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, saveSQL, args...)
	// Back to the pool's setting. Should that fail, the connection keeps
	// syncing every commit: slower, never less safe.
	_, _ = conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = NORMAL")
	return err
}

// Load implements store.Store.
func (s *Store) Load(ctx context.Context, flowID string) (*store.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: load %q: %w", flowID, err)
	}
	snap, err := scan(s.load.QueryRowContext(ctx, flowID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: load %q: %w", flowID, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: load %q: %w", flowID, err)
	}
	return snap, nil
}

// List implements store.Store. Runs updated at the same instant come in flow
// id order.
func (s *Store) List(ctx context.Context, f store.Filter) ([]*store.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list: %w", err)
	}
	var q strings.Builder
	q.WriteString("SELECT " + columns + " FROM flow_snapshots")
	args := make([]any, 0, 3)
	if f.Status != "" {
		q.WriteString(" WHERE status = ?")
		args = append(args, string(f.Status))
	}
	if f.Flow != "" {
		if len(args) == 0 {
			q.WriteString(" WHERE flow = ?")
		} else {
			q.WriteString(" AND flow = ?")
		}
		args = append(args, f.Flow)
	}
	q.WriteString(" ORDER BY updated_at DESC, flow_id")
	if f.Limit > 0 {
		q.WriteString(" LIMIT ?")
		args = append(args, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list: %w", err)
	}
	defer rows.Close()
	out := []*store.Snapshot{}
	for rows.Next() {
		snap, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list: %w", err)
		}
		out = append(out, snap)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list: %w", err)
	}
	return out, nil
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, flowID string) error {
	if err := s.lock(ctx); err != nil {
		return fmt.Errorf("sqlite: delete %q: %w", flowID, err)
	}
	defer s.unlock()
	if _, err := s.del.ExecContext(ctx, flowID); err != nil {
		return fmt.Errorf("sqlite: delete %q: %w", flowID, err)
	}
	return nil
}

// lock takes the Store's write turn, or gives up when ctx ends first.
func (s *Store) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case s.write <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) unlock() { <-s.write }

// scan reads one row in the order of columns.
func scan(row interface{ Scan(...any) error }) (*store.Snapshot, error) {
	var (
		snap   store.Snapshot
		status string
		data   []byte
		at     string
	)
	if err := row.Scan(&snap.FlowID, &snap.Flow, &status, &snap.Method, &snap.DefinitionHash, &data, &at); err != nil {
		return nil, err
	}
	snap.Status = store.Status(status)
	if err := payload.Decode(data, &snap); err != nil {
		return nil, fmt.Errorf("run %q: %w", snap.FlowID, err)
	}
	var err error
	if snap.UpdatedAt, err = time.Parse(timeLayout, at); err != nil {
		return nil, fmt.Errorf("run %q: updated_at: %w", snap.FlowID, err)
	}
	return &snap, nil
}
