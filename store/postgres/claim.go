package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/troupe-dev/troupe/store"
)

const (
	// claimSQL takes or renews a lease in one statement: the update runs
	// only when the row is the owner's own or has expired, and PostgreSQL
	// evaluates that on the latest row under its lock, so of two claims
	// at once one changes no row. Times come from the database's clock,
	// the one clock every client shares.
	claimSQL = `INSERT INTO troupe_flow_claims AS c (flow_id, owner, until)
VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3))
ON CONFLICT (flow_id) DO UPDATE SET owner = EXCLUDED.owner, until = EXCLUDED.until
WHERE c.owner = EXCLUDED.owner OR c.until <= clock_timestamp()`
	holderSQL  = `SELECT owner, until FROM troupe_flow_claims WHERE flow_id = $1`
	releaseSQL = `DELETE FROM troupe_flow_claims WHERE flow_id = $1 AND owner = $2`
)

// Claim implements store.Store. Leases are timed by the database server's
// clock.
func (s *Store) Claim(ctx context.Context, flowID, owner string, ttl time.Duration) error {
	if err := store.ValidateClaim(flowID, owner, ttl); err != nil {
		return fmt.Errorf("postgres: claim %q: %w", flowID, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: claim %q: %w", flowID, err)
	}
	tag, err := s.pool.Exec(ctx, claimSQL, flowID, owner, ttl.Seconds())
	if err != nil {
		return fmt.Errorf("postgres: claim %q: %w", flowID, err)
	}
	if tag.RowsAffected() > 0 {
		return nil
	}
	var (
		holder string
		until  time.Time
	)
	err = s.pool.QueryRow(ctx, holderSQL, flowID).Scan(&holder, &until)
	if errors.Is(err, pgx.ErrNoRows) {
		// Released between the two statements: the caller may try again.
		return fmt.Errorf("postgres: claim %q: %w", flowID, store.ErrClaimed)
	}
	if err != nil {
		return fmt.Errorf("postgres: claim %q: %w", flowID, err)
	}
	return fmt.Errorf("postgres: claim %q: %w", flowID, &store.ClaimError{FlowID: flowID, Owner: holder, Until: until.UTC()})
}

// Release implements store.Store.
func (s *Store) Release(ctx context.Context, flowID, owner string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: release %q: %w", flowID, err)
	}
	if _, err := s.pool.Exec(ctx, releaseSQL, flowID, owner); err != nil {
		return fmt.Errorf("postgres: release %q: %w", flowID, err)
	}
	return nil
}
