package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
)

// testListFilters lists a fixed set of runs by status, flow and limit, most
// recently updated first.
func testListFilters(t *testing.T, s store.Store) {
	runs := []struct {
		id, flow string
		status   store.Status
		minutes  int
	}{
		{"a", "Research", store.StatusCompleted, 1},
		{"b", "Research", store.StatusRunning, 5},
		{"c", "Support", store.StatusPaused, 3},
		{"d", "Support", store.StatusCompleted, 7},
		{"e", "Research", store.StatusPaused, 2},
		{"f", "Research", store.StatusFailed, 6},
		{"g", "Support", store.StatusRunning, 4},
	}
	for _, r := range runs {
		snap := Snapshot(r.id, r.minutes)
		snap.Flow, snap.Status = r.flow, r.status
		require.NoError(t, s.Save(t.Context(), snap))
	}
	// A later save moves a run to the front.
	moved := Snapshot("a", 8)
	moved.Flow, moved.Status = "Research", store.StatusCompleted
	require.NoError(t, s.Save(t.Context(), moved))

	cases := []struct {
		name   string
		filter store.Filter
		want   []string
	}{
		{"everything", store.Filter{}, []string{"a", "d", "f", "b", "g", "c", "e"}},
		{"by status", store.Filter{Status: store.StatusCompleted}, []string{"a", "d"}},
		{"by flow", store.Filter{Flow: "Support"}, []string{"d", "g", "c"}},
		{"by status and flow", store.Filter{Status: store.StatusPaused, Flow: "Research"}, []string{"e"}},
		{"limit", store.Filter{Limit: 3}, []string{"a", "d", "f"}},
		{"limit with filter", store.Filter{Flow: "Research", Limit: 2}, []string{"a", "f"}},
		{"limit above count", store.Filter{Status: store.StatusRunning, Limit: 10}, []string{"b", "g"}},
		{"limit one", store.Filter{Limit: 1}, []string{"a"}},
		{"no match", store.Filter{Status: "unknown"}, []string{}},
		{"unknown flow", store.Filter{Flow: "research"}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.List(t.Context(), c.filter)
			require.NoError(t, err)
			assert.Equal(t, c.want, ids(got))
			for _, snap := range got {
				require.NotNil(t, snap.State, "listed snapshots are complete")
				assert.Equal(t, snap.FlowID, snap.State["id"])
			}
		})
	}
}

// testListEmpty lists a store that holds nothing.
func testListEmpty(t *testing.T, s store.Store) {
	got, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	assert.Empty(t, got)
}
