package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/store"
)

// SnapshotPrefix starts the Flow name of the snapshots that hold agent
// sessions ("agent:after_sales"), so they are told from flow runs in a
// shared store.
const SnapshotPrefix = "agent:"

// SaveSession writes s to st, as a snapshot whose id is the session's:
// paused while a call waits for approval, completed otherwise. Sessions
// live in the same stores as flow runs (memory, SQLite, PostgreSQL).
func SaveSession(ctx context.Context, st store.Store, s *Session) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("agent: session %s: %w", s.ID, err)
	}
	var state map[string]any
	if err := json.Unmarshal(data, &state); err != nil {
		return fmt.Errorf("agent: session %s: %w", s.ID, err)
	}
	snap := &store.Snapshot{
		FlowID:    s.ID,
		Flow:      SnapshotPrefix + s.Agent,
		Status:    store.StatusCompleted,
		Method:    "turn",
		State:     state,
		UpdatedAt: time.Now().UTC(),
	}
	if p := s.Pending; p != nil {
		snap.Status = store.StatusPaused
		snap.Method = p.Call.Name
		snap.Pending = &store.PendingFeedback{
			Method:      p.Call.Name,
			Message:     fmt.Sprintf("Approve the call of %s with %s?", p.Call.Name, string(p.Call.Arguments)),
			Emit:        []string{"approve", "reject"},
			Output:      string(p.Call.Arguments),
			RequestedAt: snap.UpdatedAt,
		}
	}
	if err := st.Save(ctx, snap); err != nil {
		return fmt.Errorf("agent: saving session %s: %w", s.ID, err)
	}
	return nil
}

// ErrNoSession reports a session id that the store does not hold.
var ErrNoSession = errors.New("agent: no such session")

// LoadSession reads the session id from st. A missing session is
// ErrNoSession; a snapshot of a flow run, or of another agent when agent
// is not "", is an error too.
func LoadSession(ctx context.Context, st store.Store, id, agent string) (*Session, error) {
	snap, err := st.Load(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && snap == nil) {
		return nil, fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	if err != nil {
		return nil, fmt.Errorf("agent: loading session %s: %w", id, err)
	}
	name, ok := strings.CutPrefix(snap.Flow, SnapshotPrefix)
	if !ok {
		return nil, fmt.Errorf("agent: %s is a run of flow %q, not an agent session", id, snap.Flow)
	}
	if agent != "" && name != agent {
		return nil, fmt.Errorf("agent: session %s belongs to agent %q, not %q", id, name, agent)
	}
	data, err := json.Marshal(snap.State)
	if err != nil {
		return nil, fmt.Errorf("agent: session %s: %w", id, err)
	}
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("agent: session %s: %w", id, err)
	}
	if s.Calls == nil {
		s.Calls = map[string]int{}
	}
	return &s, nil
}
