package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/troupe-dev/troupe/store"
)

const (
	// claimSQL takes or renews a lease in one statement: the update runs
	// only when the row is the owner's own or has expired, so of two
	// claims at once (SQLite serializes writes) one changes no row.
	claimSQL = `INSERT INTO flow_claims (flow_id, owner, until) VALUES (?, ?, ?)
ON CONFLICT (flow_id) DO UPDATE SET owner = excluded.owner, until = excluded.until
WHERE flow_claims.owner = excluded.owner OR flow_claims.until <= ?`
	holderSQL  = `SELECT owner, until FROM flow_claims WHERE flow_id = ?`
	releaseSQL = `DELETE FROM flow_claims WHERE flow_id = ? AND owner = ?`
)

// Claim implements store.Store. Leases are timed by this machine's clock,
// which every process sharing the file reads.
func (s *Store) Claim(ctx context.Context, flowID, owner string, ttl time.Duration) error {
	if err := store.ValidateClaim(flowID, owner, ttl); err != nil {
		return fmt.Errorf("sqlite: claim %q: %w", flowID, err)
	}
	if err := s.lock(ctx); err != nil {
		return fmt.Errorf("sqlite: claim %q: %w", flowID, err)
	}
	defer s.unlock()
	now := time.Now().UTC()
	res, err := s.claim.ExecContext(ctx, flowID, owner, now.Add(ttl).Format(timeLayout), now.Format(timeLayout))
	if err != nil {
		return fmt.Errorf("sqlite: claim %q: %w", flowID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: claim %q: %w", flowID, err)
	}
	if n > 0 {
		return nil
	}
	var holder, until string
	err = s.db.QueryRowContext(ctx, holderSQL, flowID).Scan(&holder, &until)
	if errors.Is(err, sql.ErrNoRows) {
		// Released between the two statements: the caller may try again.
		return fmt.Errorf("sqlite: claim %q: %w", flowID, store.ErrClaimed)
	}
	if err != nil {
		return fmt.Errorf("sqlite: claim %q: %w", flowID, err)
	}
	at, err := time.Parse(timeLayout, until)
	if err != nil {
		return fmt.Errorf("sqlite: claim %q: until: %w", flowID, err)
	}
	return fmt.Errorf("sqlite: claim %q: %w", flowID, &store.ClaimError{FlowID: flowID, Owner: holder, Until: at})
}

// Release implements store.Store.
func (s *Store) Release(ctx context.Context, flowID, owner string) error {
	if err := s.lock(ctx); err != nil {
		return fmt.Errorf("sqlite: release %q: %w", flowID, err)
	}
	defer s.unlock()
	if _, err := s.release.ExecContext(ctx, flowID, owner); err != nil {
		return fmt.Errorf("sqlite: release %q: %w", flowID, err)
	}
	return nil
}
