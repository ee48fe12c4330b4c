package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// NewMemory returns an empty Store that keeps snapshots in memory, for
// tests and for runs that need not outlive the process. Snapshots are
// copied on the way in and on the way out, so callers never share maps or
// slices with the store; values are turned into JSON data on the way in.
// A zero UpdatedAt is recorded as the time of the save. Runs updated at the
// same instant are listed in flow id order.
func NewMemory() Store {
	return &memoryStore{snaps: make(map[string]*Snapshot), leases: make(map[string]lease)}
}

// memoryStore is the Store of NewMemory. Stored snapshots are never
// changed, only replaced, so they can be copied outside the lock.
type memoryStore struct {
	mu     sync.RWMutex
	snaps  map[string]*Snapshot
	leases map[string]lease
}

// lease is a run's claim in a memory store.
type lease struct {
	owner string
	until time.Time
}

func (m *memoryStore) Save(ctx context.Context, s *Snapshot) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: memory: save: %w", err)
	}
	if s == nil {
		return errors.New("store: memory: save: nil snapshot")
	}
	if s.FlowID == "" {
		return errors.New("store: memory: save: snapshot has an empty flow id")
	}
	c, err := cloneSnapshot(s)
	if err != nil {
		return fmt.Errorf("store: memory: save %q: %w", s.FlowID, err)
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = time.Now().UTC()
	}
	m.mu.Lock()
	m.snaps[c.FlowID] = c
	m.mu.Unlock()
	return nil
}

func (m *memoryStore) Load(ctx context.Context, flowID string) (*Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("store: memory: load: %w", err)
	}
	m.mu.RLock()
	s, ok := m.snaps[flowID]
	m.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("store: memory: load %q: %w", flowID, ErrNotFound)
	}
	return copySnapshot(s), nil
}

func (m *memoryStore) List(ctx context.Context, f Filter) ([]*Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("store: memory: list: %w", err)
	}
	m.mu.RLock()
	var found []*Snapshot
	for _, s := range m.snaps {
		if (f.Status == "" || s.Status == f.Status) && (f.Flow == "" || s.Flow == f.Flow) {
			found = append(found, s)
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(found, func(a, b *Snapshot) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.FlowID, b.FlowID)
	})
	if f.Limit > 0 && len(found) > f.Limit {
		found = found[:f.Limit]
	}
	out := make([]*Snapshot, len(found))
	for i, s := range found {
		out[i] = copySnapshot(s)
	}
	return out, nil
}

func (m *memoryStore) Delete(ctx context.Context, flowID string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: memory: delete: %w", err)
	}
	m.mu.Lock()
	delete(m.snaps, flowID)
	m.mu.Unlock()
	return nil
}

func (m *memoryStore) Claim(ctx context.Context, flowID, owner string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: memory: claim %q: %w", flowID, err)
	}
	if err := ValidateClaim(flowID, owner, ttl); err != nil {
		return fmt.Errorf("store: memory: claim %q: %w", flowID, err)
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.leases[flowID]; ok && l.owner != owner && now.Before(l.until) {
		return fmt.Errorf("store: memory: claim %q: %w", flowID, &ClaimError{FlowID: flowID, Owner: l.owner, Until: l.until})
	}
	m.leases[flowID] = lease{owner: owner, until: now.Add(ttl)}
	return nil
}

func (m *memoryStore) Release(ctx context.Context, flowID, owner string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: memory: release %q: %w", flowID, err)
	}
	m.mu.Lock()
	if l, ok := m.leases[flowID]; ok && l.owner == owner {
		delete(m.leases, flowID)
	}
	m.mu.Unlock()
	return nil
}

// copySnapshot deep-copies a stored snapshot, which holds JSON data only.
func copySnapshot(s *Snapshot) *Snapshot {
	c := *s
	c.State = jsondata.CopyMap(s.State)
	c.Outputs = jsondata.CopyMap(s.Outputs)
	c.Completed = slices.Clone(s.Completed)
	if s.Journal != nil {
		c.Journal = make([]JournalEntry, len(s.Journal))
		for i, e := range s.Journal {
			e.Output = jsondata.Copy(e.Output)
			c.Journal[i] = e
		}
	}
	c.LastFeedback = jsondata.CopyMap(s.LastFeedback)
	if s.Pending != nil {
		p := *s.Pending
		p.Emit = slices.Clone(p.Emit)
		p.Output = jsondata.Copy(p.Output)
		p.Metadata = jsondata.CopyMap(p.Metadata)
		c.Pending = &p
	}
	return &c
}

// cloneSnapshot deep-copies s, turning its values into JSON data. NaN
// and infinities are refused, as every database store refuses them.
func cloneSnapshot(s *Snapshot) (*Snapshot, error) {
	c := *s
	var err error
	if c.State, err = cloneMap(s.State); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if c.Outputs, err = cloneMap(s.Outputs); err != nil {
		return nil, fmt.Errorf("outputs: %w", err)
	}
	c.Completed = slices.Clone(s.Completed)
	if s.Journal != nil {
		c.Journal = make([]JournalEntry, len(s.Journal))
		for i, e := range s.Journal {
			if e.Output, err = clone(e.Output); err != nil {
				return nil, fmt.Errorf("journal entry %d (%s): %w", i, e.Method, err)
			}
			c.Journal[i] = e
		}
	}
	if c.LastFeedback, err = cloneMap(s.LastFeedback); err != nil {
		return nil, fmt.Errorf("last feedback: %w", err)
	}
	if s.Pending != nil {
		p := *s.Pending
		p.Emit = slices.Clone(p.Emit)
		if p.Output, err = clone(p.Output); err != nil {
			return nil, fmt.Errorf("pending output: %w", err)
		}
		if p.Metadata, err = cloneMap(p.Metadata); err != nil {
			return nil, fmt.Errorf("pending metadata: %w", err)
		}
		c.Pending = &p
	}
	return &c, nil
}

// clone is jsondata.Clone refusing what JSON text cannot hold.
func clone(v any) (any, error) {
	c, err := jsondata.Clone(v)
	if err != nil {
		return nil, err
	}
	return c, jsondata.Finite(c)
}

func cloneMap(m map[string]any) (map[string]any, error) {
	c, err := jsondata.CloneMap(m)
	if err != nil {
		return nil, err
	}
	return c, jsondata.Finite(c)
}
