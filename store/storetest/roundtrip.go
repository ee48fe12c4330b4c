package storetest

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
)

// testRoundTrip saves every kind of JSON data in every field and reads it
// back with the same types: int64 and float64 stay distinct, nil stays nil.
func testRoundTrip(t *testing.T, s store.Store) {
	want := full()
	require.NoError(t, s.Save(t.Context(), want))
	got, err := s.Load(t.Context(), want.FlowID)
	require.NoError(t, err)
	Equal(t, want, got)
}

// full returns a paused snapshot with every field set.
func full() *store.Snapshot {
	return &store.Snapshot{
		FlowID:         "run-1",
		Flow:           "Research",
		DefinitionHash: "sha256:abc",
		Status:         store.StatusPaused,
		Method:         "review",
		State:          data(),
		Outputs: map[string]any{
			"start": "topic",
			"draft": map[string]any{"words": int64(1200), "score": 0.5},
			"none":  nil,
		},
		Completed: []string{"start", "draft"},
		Journal: []store.JournalEntry{
			{Method: "start", Output: "topic"},
			{Method: "route", Output: 1.0, Outcome: "draft"},
			{Method: "draft", Output: data()},
			{Method: "empty", Output: nil},
		},
		LastFeedback: map[string]any{"feedback": "shorter", "outcome": "rejected", "round": int64(1)},
		Pending: &store.PendingFeedback{
			Method:         "review",
			Message:        "Approve the draft?",
			Emit:           []string{"approved", "rejected"},
			DefaultOutcome: "rejected",
			Output:         map[string]any{"draft": "text", "words": int64(3), "score": 1.0},
			Metadata:       map[string]any{"channel": "slack", "attempt": int64(2)},
			RequestedAt:    time.Date(2026, 3, 1, 12, 5, 0, 999000, time.FixedZone("CET", 3600)),
		},
		UpdatedAt: Epoch,
	}
}

// data returns a map holding every kind of JSON data, with the numbers
// that a careless encoding changes.
func data() map[string]any {
	return map[string]any{
		"id":        "run-1",
		"int":       int64(1),
		"float":     1.0,
		"fraction":  2.5,
		"negative":  int64(-7),
		"big":       int64(math.MaxInt64),
		"small":     int64(math.MinInt64),
		"huge":      1e300,
		"tiny":      1e-9,
		"large":     1e18,
		"bool":      true,
		"false":     false,
		"null":      nil,
		"text":      "quote \" backslash \\ newline \n tab \t unicode héllo ✓ 𝄞",
		"empty":     "",
		"emptyList": []any{},
		"emptyMap":  map[string]any{},
		"list":      []any{int64(1), 2.0, "three", nil, []any{false}},
		"nested": map[string]any{
			"a": map[string]any{"b": []any{map[string]any{"c": int64(3), "d": 3.0}}},
		},
	}
}

// testRoundTripEmpty saves a snapshot with only an id.
func testRoundTripEmpty(t *testing.T, s store.Store) {
	require.NoError(t, s.Save(t.Context(), &store.Snapshot{FlowID: "bare", UpdatedAt: Epoch}))
	got, err := s.Load(t.Context(), "bare")
	require.NoError(t, err)
	assert.Equal(t, "bare", got.FlowID)
	assert.Empty(t, got.Flow)
	assert.Empty(t, got.Status)
	assert.Empty(t, got.State)
	assert.Empty(t, got.Outputs)
	assert.Empty(t, got.Completed)
	assert.Nil(t, got.Pending)
	assert.True(t, Epoch.Equal(got.UpdatedAt))
}

// testNormalizesGoValues saves the Go spellings of JSON data and loads the
// canonical forms.
func testNormalizesGoValues(t *testing.T, s store.Store) {
	snap := Snapshot("go-values", 0)
	snap.State = map[string]any{
		"int":     3,
		"int32":   int32(-4),
		"uint8":   uint8(5),
		"float32": float32(0.5),
		"strings": []string{"a", "b"},
		"map":     map[string]string{"k": "v"},
		"nested":  []any{map[string]any{"n": 6}},
	}
	require.NoError(t, s.Save(t.Context(), snap))
	got, err := s.Load(t.Context(), "go-values")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"int":     int64(3),
		"int32":   int64(-4),
		"uint8":   int64(5),
		"float32": 0.5,
		"strings": []any{"a", "b"},
		"map":     map[string]any{"k": "v"},
		"nested":  []any{map[string]any{"n": int64(6)}},
	}, got.State)
}

// testPendingRoundTrip saves a paused run waiting for feedback, then clears
// the question with a later save.
func testPendingRoundTrip(t *testing.T, s store.Store) {
	paused := Snapshot("paused", 1)
	paused.Status = store.StatusPaused
	paused.Method = "review"
	paused.Pending = full().Pending
	require.NoError(t, s.Save(t.Context(), paused))
	got, err := s.Load(t.Context(), "paused")
	require.NoError(t, err)
	Equal(t, paused, got)

	bare := Snapshot("paused-bare", 1)
	bare.Pending = &store.PendingFeedback{Method: "ask", Output: "plain text"}
	require.NoError(t, s.Save(t.Context(), bare))
	got, err = s.Load(t.Context(), "paused-bare")
	require.NoError(t, err)
	Equal(t, bare, got)

	resumed := Snapshot("paused", 2)
	resumed.Status = store.StatusCompleted
	require.NoError(t, s.Save(t.Context(), resumed))
	got, err = s.Load(t.Context(), "paused")
	require.NoError(t, err)
	assert.Nil(t, got.Pending)
	assert.Equal(t, store.StatusCompleted, got.Status)
}

// testSaveCopies changes a snapshot after saving it: the store must not see
// the change.
func testSaveCopies(t *testing.T, s store.Store) {
	snap := Snapshot("copied", 0)
	snap.State["list"] = []any{int64(1)}
	snap.Journal = []store.JournalEntry{{Method: "start", Output: map[string]any{"k": "v"}}}
	snap.LastFeedback = map[string]any{"feedback": "ok"}
	snap.Pending = &store.PendingFeedback{Method: "m", Emit: []string{"yes"}, Output: map[string]any{"k": "v"}, Metadata: map[string]any{"a": "b"}}
	require.NoError(t, s.Save(t.Context(), snap))

	snap.State["count"] = int64(99)
	snap.State["list"].([]any)[0] = int64(2)
	snap.Outputs["start"] = "changed"
	snap.Completed[0] = "changed"
	snap.Journal[0].Output.(map[string]any)["k"] = "changed"
	snap.Journal[0].Method = "changed"
	snap.LastFeedback["feedback"] = "changed"
	snap.Pending.Output.(map[string]any)["k"] = "changed"
	snap.Pending.Metadata["a"] = "changed"
	snap.Pending.Emit[0] = "changed"
	snap.Status = store.StatusFailed

	got, err := s.Load(t.Context(), "copied")
	require.NoError(t, err)
	assert.Equal(t, int64(0), got.State["count"])
	assert.Equal(t, []any{int64(1)}, got.State["list"])
	assert.Equal(t, "out copied", got.Outputs["start"])
	assert.Equal(t, []string{"start"}, got.Completed)
	assert.Equal(t, []store.JournalEntry{{Method: "start", Output: map[string]any{"k": "v"}}}, got.Journal)
	assert.Equal(t, map[string]any{"feedback": "ok"}, got.LastFeedback)
	assert.Equal(t, map[string]any{"k": "v"}, got.Pending.Output)
	assert.Equal(t, map[string]any{"a": "b"}, got.Pending.Metadata)
	assert.Equal(t, []string{"yes"}, got.Pending.Emit)
	assert.Equal(t, store.StatusRunning, got.Status)
}

// testLoadCopies changes a loaded snapshot: the next load must not see it.
func testLoadCopies(t *testing.T, s store.Store) {
	snap := full()
	require.NoError(t, s.Save(t.Context(), snap))

	first, err := s.Load(t.Context(), snap.FlowID)
	require.NoError(t, err)
	first.State["count"] = int64(42)
	first.State["nested"].(map[string]any)["a"] = "changed"
	first.Completed[0] = "changed"
	first.Journal[2].Output.(map[string]any)["int"] = "changed"
	first.LastFeedback["round"] = "changed"
	first.Pending.Output.(map[string]any)["words"] = "changed"
	first.Pending.Metadata["attempt"] = "changed"
	first.Pending.Emit[0] = "changed"

	listed, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	require.Len(t, listed, 1)
	listed[0].Outputs["start"] = "changed"

	again, err := s.Load(t.Context(), snap.FlowID)
	require.NoError(t, err)
	Equal(t, snap, again)
}
