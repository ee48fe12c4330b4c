// Package memorytest is the conformance suite for memory.Store
// implementations, plus small helpers for tests that use memory.
//
// A store passes when
//
//	func TestConformance(t *testing.T) {
//		memorytest.Run(t, func(t *testing.T) memory.Store {
//			s := mystore.New(...)
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// passes, under the race detector too.
//
// Start with [Run].
//
// It imports memory and testify only; it must not import flow or any
// backend.
package memorytest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
)

// Epoch is the creation time of the suite's records unless a case says
// otherwise; it is in UTC so stores may return times in any location.
var Epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// Run runs every conformance case against stores made by open, one fresh
// empty store per case. open should register the store's Close with
// t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) memory.Store) {
	t.Helper()
	cases := []struct {
		name string
		fn   func(t *testing.T, s memory.Store)
	}{
		{"PutGetRoundTrip", testPutGetRoundTrip},
		{"GetMissing", testGetMissing},
		{"PutReplaces", testPutReplaces},
		{"PutCopies", testPutCopies},
		{"PutRejectsInvalid", testPutRejectsInvalid},
		{"PutRejectsDimension", testPutRejectsDimension},
		{"Delete", testDelete},
		{"DeleteScope", testDeleteScope},
		{"ListFilters", testListFilters},
		{"SearchSimilarity", testSearchSimilarity},
		{"SearchComposite", testSearchComposite},
		{"SearchTiesByID", testSearchTiesByID},
		{"SearchFilters", testSearchFilters},
		{"SearchWithoutVectors", testSearchWithoutVectors},
		{"SearchRejectsDimension", testSearchRejectsDimension},
		{"SearchAfterDeletes", testSearchAfterDeletes},
		{"CancelledContext", testCancelledContext},
		{"Concurrent", testConcurrent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.fn(t, open(t))
		})
	}
}

// Rec is a record for tests: ID, scope and vector, created at Epoch with
// importance 0.5 and content "content of <id>".
func Rec(id, scope string, vec ...float32) memory.Record {
	return memory.Record{
		ID:         id,
		Content:    "content of " + id,
		Scope:      scope,
		Importance: 0.5,
		CreatedAt:  Epoch,
		UpdatedAt:  Epoch,
		Embedding:  vec,
	}
}

// IDs returns the IDs of records, in order.
func IDs(records []memory.Record) []string {
	out := make([]string, len(records))
	for i, r := range records {
		out[i] = r.ID
	}
	return out
}

// MatchIDs returns the IDs of the matched records, in order.
func MatchIDs(matches []memory.Match) []string {
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = m.Record.ID
	}
	return out
}

// Put stores records or fails the test.
func Put(t testing.TB, s memory.Store, records ...memory.Record) {
	t.Helper()
	require.NoError(t, s.Put(context.Background(), records...))
}

// A Clock is a settable clock for memory.WithClock; it is not safe for
// concurrent use.
type Clock struct{ t time.Time }

// NewClock returns a Clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.t }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.t = c.t.Add(d) }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.t = t }

// Days is n days as a Duration.
func Days(n float64) time.Duration { return time.Duration(n * float64(24*time.Hour)) }
