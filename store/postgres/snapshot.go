package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/internal/payload"
)

const (
	columns = "flow_id, flow, status, method, definition_hash, data, updated_at"
	saveSQL = `INSERT INTO troupe_flow_snapshots (` + columns + `) VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (flow_id) DO UPDATE SET flow = EXCLUDED.flow, status = EXCLUDED.status,
	method = EXCLUDED.method, definition_hash = EXCLUDED.definition_hash,
	data = EXCLUDED.data, updated_at = EXCLUDED.updated_at`
	loadSQL   = `SELECT ` + columns + ` FROM troupe_flow_snapshots WHERE flow_id = $1`
	deleteSQL = `DELETE FROM troupe_flow_snapshots WHERE flow_id = $1`
)

// Save implements store.Store. A zero UpdatedAt is recorded as the time of
// the save.
func (s *Store) Save(ctx context.Context, snap *store.Snapshot) error {
	if err := payload.Check(snap); err != nil {
		return fmt.Errorf("postgres: save: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: save %q: %w", snap.FlowID, err)
	}
	data, err := payload.Encode(make([]byte, 0, 1024), snap)
	if err != nil {
		return fmt.Errorf("postgres: save %q: %w", snap.FlowID, err)
	}
	_, err = s.pool.Exec(ctx, saveSQL, snap.FlowID, snap.Flow, string(snap.Status), snap.Method,
		snap.DefinitionHash, data, payload.UpdatedAt(snap))
	if err != nil {
		return fmt.Errorf("postgres: save %q: %w", snap.FlowID, err)
	}
	return nil
}

// Load implements store.Store.
func (s *Store) Load(ctx context.Context, flowID string) (*store.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: load %q: %w", flowID, err)
	}
	snap, err := scan(s.pool.QueryRow(ctx, loadSQL, flowID))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: load %q: %w", flowID, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: load %q: %w", flowID, err)
	}
	return snap, nil
}

// List implements store.Store. Runs updated at the same instant come in flow
// id order (byte order, whatever the database's collation).
func (s *Store) List(ctx context.Context, f store.Filter) ([]*store.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	var q strings.Builder
	q.WriteString("SELECT " + columns + " FROM troupe_flow_snapshots")
	args := make([]any, 0, 3)
	where := func(cond string, arg any) {
		if len(args) == 0 {
			q.WriteString(" WHERE ")
		} else {
			q.WriteString(" AND ")
		}
		args = append(args, arg)
		q.WriteString(cond + strconv.Itoa(len(args)))
	}
	if f.Status != "" {
		where("status = $", string(f.Status))
	}
	if f.Flow != "" {
		where("flow = $", f.Flow)
	}
	q.WriteString(` ORDER BY updated_at DESC, flow_id COLLATE "C"`)
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q.WriteString(" LIMIT $" + strconv.Itoa(len(args)))
	}
	rows, err := s.pool.Query(ctx, q.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	defer rows.Close()
	out := []*store.Snapshot{}
	for rows.Next() {
		snap, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: list: %w", err)
		}
		out = append(out, snap)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	return out, nil
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, flowID string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: delete %q: %w", flowID, err)
	}
	if _, err := s.pool.Exec(ctx, deleteSQL, flowID); err != nil {
		return fmt.Errorf("postgres: delete %q: %w", flowID, err)
	}
	return nil
}

// scan reads one row in the order of columns.
func scan(row pgx.Row) (*store.Snapshot, error) {
	var (
		snap   store.Snapshot
		status string
		data   []byte
		at     time.Time
	)
	if err := row.Scan(&snap.FlowID, &snap.Flow, &status, &snap.Method, &snap.DefinitionHash, &data, &at); err != nil {
		return nil, err
	}
	snap.Status = store.Status(status)
	if err := payload.Decode(data, &snap); err != nil {
		return nil, fmt.Errorf("run %q: %w", snap.FlowID, err)
	}
	snap.UpdatedAt = at.UTC()
	return &snap, nil
}
