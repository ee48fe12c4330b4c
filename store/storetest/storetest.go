// Package storetest is the conformance suite for store.Store
// implementations.
//
// A store conforms when
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			s, err := mystore.Open(...)
//			require.NoError(t, err)
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// passes, under the race detector too. Benchmark measures a store the same
// way for every backend. Stores may keep UpdatedAt to the
// microsecond only, so the suite's times have no finer part, and they may
// return times in any location.
//
// Start with [Run]; [Snapshot] and [Equal] help backends' own tests.
//
// It imports store and testify only; it must not import flow or any
// backend.
package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
)

// Epoch is the update time of the suite's snapshots unless a case says
// otherwise.
var Epoch = time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)

// Run runs every conformance case against stores made by open, one fresh
// empty store per case. open should register the store's Close with
// t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	cases := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"RoundTripEmpty", testRoundTripEmpty},
		{"NormalizesGoValues", testNormalizesGoValues},
		{"PendingRoundTrip", testPendingRoundTrip},
		{"SaveCopies", testSaveCopies},
		{"LoadCopies", testLoadCopies},
		{"SaveOverwrites", testSaveOverwrites},
		{"SaveStampsZeroTime", testSaveStampsZeroTime},
		{"SaveRejectsInvalid", testSaveRejectsInvalid},
		{"LoadMissing", testLoadMissing},
		{"Delete", testDelete},
		{"ListFilters", testListFilters},
		{"ListEmpty", testListEmpty},
		{"CancelledContext", testCancelledContext},
		{"Concurrent", testConcurrent},
		{"SaveRejectsNonFinite", testSaveRejectsNonFinite},
		{"ClaimExclusive", testClaimExclusive},
		{"ClaimRenews", testClaimRenews},
		{"ClaimExpiry", testClaimExpiry},
		{"ClaimRelease", testClaimRelease},
		{"ClaimApartFromSnapshots", testClaimApartFromSnapshots},
		{"ClaimRejectsInvalid", testClaimRejectsInvalid},
		{"ClaimCancelled", testClaimCancelled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.fn(t, open(t))
		})
	}
}

// Snapshot returns a running snapshot of the flow "Flow" with the given id,
// updated minutes after Epoch, with a small state.
func Snapshot(id string, minutes int) *store.Snapshot {
	return &store.Snapshot{
		FlowID:         id,
		Flow:           "Flow",
		DefinitionHash: "sha256:0f1e",
		Status:         store.StatusRunning,
		Method:         "start",
		State:          map[string]any{"id": id, "count": int64(minutes)},
		Outputs:        map[string]any{"start": fmt.Sprintf("out %s", id)},
		Completed:      []string{"start"},
		UpdatedAt:      Epoch.Add(time.Duration(minutes) * time.Minute),
	}
}

// Equal asserts that got holds what want holds: the same JSON data with the
// same types, and the same instants (in any location).
func Equal(t *testing.T, want, got *store.Snapshot) {
	t.Helper()
	require.NotNil(t, got)
	assert.Truef(t, want.UpdatedAt.Equal(got.UpdatedAt), "UpdatedAt: want %v, got %v", want.UpdatedAt, got.UpdatedAt)
	w, g := *want, *got
	w.UpdatedAt, g.UpdatedAt = time.Time{}, time.Time{}
	if want.Pending != nil && got.Pending != nil {
		assert.Truef(t, want.Pending.RequestedAt.Equal(got.Pending.RequestedAt),
			"Pending.RequestedAt: want %v, got %v", want.Pending.RequestedAt, got.Pending.RequestedAt)
		wp, gp := *want.Pending, *got.Pending
		wp.RequestedAt, gp.RequestedAt = time.Time{}, time.Time{}
		w.Pending, g.Pending = &wp, &gp
	}
	assert.Equal(t, w, g)
}

// ids returns the flow ids of snapshots in order.
func ids(snaps []*store.Snapshot) []string {
	out := make([]string, len(snaps))
	for i, s := range snaps {
		out[i] = s.FlowID
	}
	return out
}
