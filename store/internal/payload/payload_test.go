package payload_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/internal/payload"
)

func TestEncodeText(t *testing.T) {
	s := &store.Snapshot{
		State:        map[string]any{"n": 1.0},
		Completed:    []string{"a"},
		Journal:      []store.JournalEntry{{Method: "a", Output: int64(1), Outcome: "go"}},
		LastFeedback: map[string]any{"feedback": "ok"},
		Pending:      &store.PendingFeedback{Method: "m", RequestedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
	}
	got, err := payload.Encode(nil, s)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"state": {"n": 1.0}, "outputs": null, "completed": ["a"],
		"journal": [{"method": "a", "output": 1, "outcome": "go"}],
		"last_feedback": {"feedback": "ok"},
		"pending": {"method": "m", "message": "", "emit": null, "default_outcome": "", "output": null,
			"metadata": null, "requested_at": "2026-01-02T03:04:05.000000006Z"}
	}`, string(got))
	assert.Contains(t, string(got), `"n":1.0`)
}

func TestEncodeRejects(t *testing.T) {
	cases := []struct {
		name string
		snap *store.Snapshot
		want string
	}{
		{"NaN in state", &store.Snapshot{State: map[string]any{"x": math.NaN()}}, "state"},
		{"func in outputs", &store.Snapshot{Outputs: map[string]any{"f": func() {}}}, "outputs"},
		{"infinity in journal", &store.Snapshot{Journal: []store.JournalEntry{{Method: "m", Output: math.Inf(1)}}}, "journal"},
		{"channel in last feedback", &store.Snapshot{LastFeedback: map[string]any{"c": make(chan int)}}, "last feedback"},
		{"NaN in pending output", &store.Snapshot{Pending: &store.PendingFeedback{Output: math.NaN()}}, "pending: output"},
		{"NaN in pending metadata", &store.Snapshot{Pending: &store.PendingFeedback{Metadata: map[string]any{"x": math.NaN()}}}, "pending: metadata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := payload.Encode(nil, c.snap)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "payload: "+c.want)
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"not JSON", `{`, "payload: jsondata"},
		{"not an object", `[]`, "want an object"},
		{"state list", `{"state":[]}`, "state is []interface {}, want an object"},
		{"outputs text", `{"outputs":"x"}`, "outputs is string"},
		{"completed number", `{"completed":[1]}`, "completed[0] is int64"},
		{"completed object", `{"completed":{}}`, "completed is map"},
		{"journal object", `{"journal":{}}`, "journal is map"},
		{"journal entry text", `{"journal":["x"]}`, "journal[0] is string"},
		{"journal method number", `{"journal":[{"method":1}]}`, "journal[0]: payload: method is int64"},
		{"journal outcome list", `{"journal":[{"method":"m","outcome":[]}]}`, "outcome is"},
		{"last feedback list", `{"last_feedback":[]}`, "last_feedback is"},
		{"pending text", `{"pending":"x"}`, "pending is string"},
		{"pending method", `{"pending":{"method":true}}`, "method is bool"},
		{"pending message", `{"pending":{"message":1}}`, "message is int64"},
		{"pending default", `{"pending":{"default_outcome":1}}`, "default_outcome is"},
		{"pending emit", `{"pending":{"emit":"x"}}`, "emit is string"},
		{"pending metadata", `{"pending":{"metadata":1}}`, "metadata is"},
		{"pending time", `{"pending":{"requested_at":1}}`, "requested_at is"},
		{"pending bad time", `{"pending":{"requested_at":"yesterday"}}`, "requested_at"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s store.Snapshot
			err := payload.Decode([]byte(c.data), &s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestCheck(t *testing.T) {
	assert.Error(t, payload.Check(nil))
	assert.Error(t, payload.Check(&store.Snapshot{}))
	assert.NoError(t, payload.Check(&store.Snapshot{FlowID: "x"}))
}

func TestUpdatedAt(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))
	got := payload.UpdatedAt(&store.Snapshot{UpdatedAt: at})
	assert.True(t, at.Equal(got))
	assert.Equal(t, time.UTC, got.Location())

	before := time.Now()
	got = payload.UpdatedAt(&store.Snapshot{})
	assert.False(t, got.Before(before))
	assert.Equal(t, time.UTC, got.Location())
}
