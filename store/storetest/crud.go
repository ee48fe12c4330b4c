package storetest

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
)

// testSaveOverwrites saves the same flow id twice: the second save replaces
// the first in Load and in List.
func testSaveOverwrites(t *testing.T, s store.Store) {
	first := Snapshot("run", 1)
	require.NoError(t, s.Save(t.Context(), first))

	second := Snapshot("run", 2)
	second.Status = store.StatusCompleted
	second.Method = "finish"
	second.State = map[string]any{"id": "run", "done": true}
	second.Outputs = map[string]any{"finish": 2.0}
	second.Completed = []string{"start", "finish"}
	require.NoError(t, s.Save(t.Context(), second))

	got, err := s.Load(t.Context(), "run")
	require.NoError(t, err)
	Equal(t, second, got)

	all, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	require.Len(t, all, 1)
	Equal(t, second, all[0])
}

// testSaveStampsZeroTime saves a snapshot without an update time: the store
// records the time of the save.
func testSaveStampsZeroTime(t *testing.T, s store.Store) {
	before := time.Now().Truncate(time.Microsecond)
	snap := Snapshot("unstamped", 0)
	snap.UpdatedAt = time.Time{}
	require.NoError(t, s.Save(t.Context(), snap))
	after := time.Now().Add(time.Microsecond)

	got, err := s.Load(t.Context(), "unstamped")
	require.NoError(t, err)
	assert.False(t, got.UpdatedAt.Before(before), "UpdatedAt %v before the save at %v", got.UpdatedAt, before)
	assert.False(t, got.UpdatedAt.After(after), "UpdatedAt %v after the save at %v", got.UpdatedAt, after)
	assert.True(t, snap.UpdatedAt.IsZero(), "Save changed the caller's snapshot")
}

// testSaveRejectsInvalid saves what no store can keep.
func testSaveRejectsInvalid(t *testing.T, s store.Store) {
	cases := []struct {
		name string
		snap *store.Snapshot
	}{
		{"nil snapshot", nil},
		{"empty flow id", &store.Snapshot{Flow: "Flow", UpdatedAt: Epoch}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Error(t, s.Save(t.Context(), c.snap))
		})
	}
	all, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	assert.Empty(t, all)
}

// testSaveRejectsNonFinite saves NaN and infinities, which JSON cannot
// hold: every store refuses them, naming where they are, and keeps what
// it held.
func testSaveRejectsNonFinite(t *testing.T, s store.Store) {
	require.NoError(t, s.Save(t.Context(), Snapshot("run", 0)))
	cases := []struct {
		name   string
		change func(*store.Snapshot)
		want   string
	}{
		{"NaN in state", func(s *store.Snapshot) { s.State["score"] = math.NaN() }, "state"},
		{"infinity in outputs", func(s *store.Snapshot) { s.Outputs["start"] = []any{math.Inf(1)} }, "outputs"},
		{"negative infinity in the journal", func(s *store.Snapshot) {
			s.Journal = []store.JournalEntry{{Method: "start", Output: map[string]any{"x": math.Inf(-1)}}}
		}, "journal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			snap := Snapshot("run", 1)
			c.change(snap)
			err := s.Save(t.Context(), snap)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			got, err := s.Load(t.Context(), "run")
			require.NoError(t, err)
			Equal(t, Snapshot("run", 0), got)
		})
	}
}

// testLoadMissing loads ids the store never held.
func testLoadMissing(t *testing.T, s store.Store) {
	require.NoError(t, s.Save(t.Context(), Snapshot("present", 0)))
	for _, id := range []string{"absent", "", "PRESENT", "present "} {
		t.Run(id, func(t *testing.T) {
			got, err := s.Load(t.Context(), id)
			require.ErrorIs(t, err, store.ErrNotFound)
			assert.Nil(t, got)
		})
	}
}

// testDelete deletes a run, again, and one that never existed.
func testDelete(t *testing.T, s store.Store) {
	require.NoError(t, s.Save(t.Context(), Snapshot("gone", 0)))
	require.NoError(t, s.Save(t.Context(), Snapshot("kept", 1)))

	require.NoError(t, s.Delete(t.Context(), "gone"))
	_, err := s.Load(t.Context(), "gone")
	require.ErrorIs(t, err, store.ErrNotFound)

	require.NoError(t, s.Delete(t.Context(), "gone"), "deleting twice")
	require.NoError(t, s.Delete(t.Context(), "never"), "deleting a missing id")

	all, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"kept"}, ids(all))

	require.NoError(t, s.Save(t.Context(), Snapshot("gone", 2)), "saving a deleted id again")
	_, err = s.Load(t.Context(), "gone")
	require.NoError(t, err)
}

// testCancelledContext calls every method with a cancelled context: each
// returns an error wrapping context.Canceled and changes nothing.
func testCancelledContext(t *testing.T, s store.Store) {
	require.NoError(t, s.Save(t.Context(), Snapshot("kept", 0)))
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()

	err := s.Save(cancelled, Snapshot("new", 1))
	assert.True(t, errors.Is(err, context.Canceled), "Save: %v", err)
	_, err = s.Load(cancelled, "kept")
	assert.True(t, errors.Is(err, context.Canceled), "Load: %v", err)
	_, err = s.List(cancelled, store.Filter{})
	assert.True(t, errors.Is(err, context.Canceled), "List: %v", err)
	err = s.Delete(cancelled, "kept")
	assert.True(t, errors.Is(err, context.Canceled), "Delete: %v", err)

	all, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"kept"}, ids(all))
}
