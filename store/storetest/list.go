package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// testListFilters lists a fixed set of runs by status, flow and limit, most
// recently updated first.
func testListFilters(t *testing.T, s flow.Store) {
	runs := []struct {
		id, flow, status string
		minutes          int
	}{
		{"a", "Research", flow.StatusCompleted, 1},
		{"b", "Research", flow.StatusRunning, 5},
		{"c", "Support", flow.StatusPaused, 3},
		{"d", "Support", flow.StatusCompleted, 7},
		{"e", "Research", flow.StatusPaused, 2},
		{"f", "Research", flow.StatusFailed, 6},
		{"g", "Support", flow.StatusRunning, 4},
	}
	for _, r := range runs {
		snap := Snapshot(r.id, r.minutes)
		snap.Flow, snap.Status = r.flow, r.status
		require.NoError(t, s.Save(t.Context(), snap))
	}
	// A later save moves a run to the front.
	moved := Snapshot("a", 8)
	moved.Flow, moved.Status = "Research", flow.StatusCompleted
	require.NoError(t, s.Save(t.Context(), moved))

	cases := []struct {
		name   string
		filter flow.Filter
		want   []string
	}{
		{"everything", flow.Filter{}, []string{"a", "d", "f", "b", "g", "c", "e"}},
		{"by status", flow.Filter{Status: flow.StatusCompleted}, []string{"a", "d"}},
		{"by flow", flow.Filter{Flow: "Support"}, []string{"d", "g", "c"}},
		{"by status and flow", flow.Filter{Status: flow.StatusPaused, Flow: "Research"}, []string{"e"}},
		{"limit", flow.Filter{Limit: 3}, []string{"a", "d", "f"}},
		{"limit with filter", flow.Filter{Flow: "Research", Limit: 2}, []string{"a", "f"}},
		{"limit above count", flow.Filter{Status: flow.StatusRunning, Limit: 10}, []string{"b", "g"}},
		{"limit one", flow.Filter{Limit: 1}, []string{"a"}},
		{"no match", flow.Filter{Status: "unknown"}, []string{}},
		{"unknown flow", flow.Filter{Flow: "research"}, []string{}},
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
func testListEmpty(t *testing.T, s flow.Store) {
	got, err := s.List(t.Context(), flow.Filter{})
	require.NoError(t, err)
	assert.Empty(t, got)
}
