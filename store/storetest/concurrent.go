package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
)

// testConcurrent saves, loads and lists from many goroutines at once. Each
// goroutine writes its own runs several times and one run shared by all;
// at the end every run holds a snapshot some goroutine saved last.
func testConcurrent(t *testing.T, s store.Store) {
	const workers, rounds = 16, 8
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*4)
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				own := Snapshot(fmt.Sprintf("w%02d-r%d", w, r%2), w*rounds+r)
				own.State["round"] = int64(r)
				shared := Snapshot("shared", w*rounds+r)
				shared.State["worker"] = int64(w)
				for _, snap := range []*store.Snapshot{own, shared} {
					if err := s.Save(t.Context(), snap); err != nil {
						errs <- fmt.Errorf("save %s: %w", snap.FlowID, err)
					}
				}
				if got, err := s.Load(t.Context(), own.FlowID); err != nil {
					errs <- fmt.Errorf("load %s: %w", own.FlowID, err)
				} else if got.State["round"] != int64(r) {
					errs <- fmt.Errorf("load %s: round %v, want %d", own.FlowID, got.State["round"], r)
				}
				if _, err := s.List(t.Context(), store.Filter{Limit: 5}); err != nil {
					errs <- fmt.Errorf("list: %w", err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}

	all, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	assert.Len(t, all, workers*2+1)
	shared, err := s.Load(t.Context(), "shared")
	require.NoError(t, err)
	assert.IsType(t, int64(0), shared.State["worker"])
	for w := range workers {
		got, err := s.Load(t.Context(), fmt.Sprintf("w%02d-r1", w))
		require.NoError(t, err)
		assert.Equal(t, int64(rounds-1), got.State["round"])
	}
}
