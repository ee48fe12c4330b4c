package sqlite

import "context"

// Corrupt overwrites the data column of a run, for tests of bad rows.
func (s *Store) Corrupt(ctx context.Context, flowID, data string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE flow_snapshots SET data = ? WHERE flow_id = ?`, data, flowID)
	return err
}
