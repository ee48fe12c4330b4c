// Package store holds what persistence of flow runs is made of: the
// Snapshot of a run, the Store interface that keeps snapshots, and an
// in-memory Store. Backends live in sub-packages named after them
// (store/sqlite, store/postgres); store/storetest is the conformance suite
// every Store should pass.
//
// The package imports nothing of Troupe but internal packages, so a backend
// links neither the flow engine nor its CEL and YAML dependencies.
//
// Start with [Store] and [Snapshot] (store.go), then [NewMemory]
// (memory.go); store/storetest is the conformance suite every backend
// passes.
//
// It imports internal/jsondata only; it must not import flow, cel-go or
// YAML, so that a backend does not link the engine.
package store

import (
	"context"
	"errors"
	"time"
)

// A Store keeps run snapshots so runs can be restored by id, resumed after
// a pause for human feedback, and continued after a crash. Implementations
// must be safe for concurrent use; see store/storetest for the conformance
// suite every Store should pass.
type Store interface {
	// Save writes the snapshot of a run, replacing the earlier one with
	// the same FlowID. It rejects a nil snapshot or an empty FlowID, and
	// records a zero UpdatedAt as the time of the save (without changing
	// the caller's snapshot).
	Save(ctx context.Context, s *Snapshot) error
	// Load returns the latest snapshot of a run, or an error wrapping
	// ErrNotFound.
	Load(ctx context.Context, flowID string) (*Snapshot, error)
	// List returns the snapshots that match f, most recently updated first.
	List(ctx context.Context, f Filter) ([]*Snapshot, error)
	// Delete removes a run's snapshot; deleting a missing one is not an
	// error. It leaves the run's lease alone.
	Delete(ctx context.Context, flowID string) error
	// Claim takes a lease on the run flowID for owner, lasting ttl from
	// now, or renews it when owner holds it already. While another owner
	// holds an unexpired lease it fails with an error wrapping ErrClaimed,
	// so of several owners claiming one run at once exactly one wins; an
	// expired lease (its owner crashed) can be taken over. The run need
	// not have a snapshot: leases are kept apart from snapshots. It
	// rejects an empty flowID or owner and a ttl that is not positive.
	Claim(ctx context.Context, flowID, owner string, ttl time.Duration) error
	// Release ends owner's lease on flowID at once. Releasing a lease that
	// owner does not hold (never taken, expired and taken over, or
	// released already) does nothing.
	Release(ctx context.Context, flowID, owner string) error
}

// ErrNotFound reports a flow id a Store does not hold.
var ErrNotFound = errors.New("store: no stored run with that id")

// ErrClaimed reports a run whose lease another owner holds: the run is
// being resumed, or is still running, elsewhere.
var ErrClaimed = errors.New("store: the run is being resumed or is still running elsewhere")

// Status is the state of a run in a Snapshot.
type Status string

// Run statuses in a Snapshot.
const (
	StatusRunning   Status = "running"
	StatusPaused    Status = "paused"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
)

// A Snapshot is what a Store keeps of one run after a method completes.
type Snapshot struct {
	// FlowID is the run's state id.
	FlowID string `json:"flow_id"`
	// Flow is the definition's name; DefinitionHash identifies its content
	// so a resume can refuse a definition that changed.
	Flow           string `json:"flow"`
	DefinitionHash string `json:"definition_hash"`
	Status         Status `json:"status"`
	// Method is the method whose completion (or pause) wrote the snapshot.
	Method string `json:"method"`
	// State, Outputs (the latest output of each method) and Completed
	// (method names in completion order) are what a resumed run starts
	// from.
	State     map[string]any `json:"state"`
	Outputs   map[string]any `json:"outputs"`
	Completed []string       `json:"completed"`
	// Journal holds every completion with its output, in order, so a
	// resumed run replays finished methods instead of running them again.
	Journal []JournalEntry `json:"journal"`
	// LastFeedback is the latest human feedback result of the run.
	LastFeedback map[string]any `json:"last_feedback,omitempty"`
	// Pending is set while the run waits for human feedback.
	Pending   *PendingFeedback `json:"pending,omitempty"`
	UpdatedAt time.Time        `json:"updated_at"`
}

// JournalEntry is one completed method and its output (as JSON data).
type JournalEntry struct {
	Method string `json:"method"`
	Output any    `json:"output"`
	// Outcome is the event a router emitted, when it emitted one.
	Outcome string `json:"outcome,omitempty"`
}

// PendingFeedback is a question a paused run waits on.
type PendingFeedback struct {
	Method         string         `json:"method"`
	Message        string         `json:"message"`
	Emit           []string       `json:"emit,omitempty"`
	DefaultOutcome string         `json:"default_outcome,omitempty"`
	Output         any            `json:"output"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	RequestedAt    time.Time      `json:"requested_at"`
}

// Filter selects snapshots in Store.List. Zero fields match everything.
type Filter struct {
	Status Status
	Flow   string
	Limit  int
}
