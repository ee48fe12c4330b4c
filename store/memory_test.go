package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return store.NewMemory() })
}

func TestMemoryStoreRejectsNonJSON(t *testing.T) {
	cases := []struct {
		name   string
		change func(s *store.Snapshot)
		want   string
	}{
		{"func in state", func(s *store.Snapshot) { s.State["f"] = func() {} }, `state`},
		{"channel in outputs", func(s *store.Snapshot) { s.Outputs["c"] = make(chan int) }, `outputs`},
		{"func in pending output", func(s *store.Snapshot) {
			s.Pending = &store.PendingFeedback{Output: []any{func() {}}}
		}, `pending output`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := store.NewMemory()
			snap := storetest.Snapshot("bad", 0)
			c.change(snap)
			err := s.Save(t.Context(), snap)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			_, err = s.Load(t.Context(), "bad")
			assert.ErrorIs(t, err, store.ErrNotFound)
		})
	}
}

func TestMemoryStoreConvertsStructs(t *testing.T) {
	type draft struct {
		Title string `json:"title"`
		Words int    `json:"words"`
	}
	s := store.NewMemory()
	snap := storetest.Snapshot("structs", 0)
	snap.Outputs["draft"] = draft{Title: "Go", Words: 3}
	require.NoError(t, s.Save(t.Context(), snap))
	got, err := s.Load(t.Context(), "structs")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"title": "Go", "words": int64(3)}, got.Outputs["draft"])
}

func BenchmarkMemoryStore(b *testing.B) {
	s := store.NewMemory()
	for i := range 1000 {
		if err := s.Save(b.Context(), storetest.Snapshot(fmt.Sprintf("run-%04d", i), i)); err != nil {
			b.Fatal(err)
		}
	}
	storetest.Benchmark(b, s)
}

// A memory store hands out copies: changing a loaded snapshot changes
// nothing stored.
func ExampleNewMemory() {
	ctx := context.Background()
	st := store.NewMemory()
	_ = st.Save(ctx, &store.Snapshot{FlowID: "run-1", Status: store.StatusRunning, State: map[string]any{"count": 1}})

	snap, _ := st.Load(ctx, "run-1")
	snap.State["count"] = int64(99)

	again, _ := st.Load(ctx, "run-1")
	fmt.Printf("%v %T\n", again.State["count"], again.State["count"])
	// Output: 1 int64
}
