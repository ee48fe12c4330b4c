package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
)

// hour is a lease no case outlives.
const hour = time.Hour

// testClaimExclusive lets many owners claim one run at once: exactly one
// wins, every other fails with ErrClaimed.
func testClaimExclusive(t *testing.T, s store.Store) {
	const owners = 16
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, owners)
	)
	for i := range owners {
		wg.Go(func() {
			<-start
			errs[i] = s.Claim(t.Context(), "run", fmt.Sprintf("owner-%02d", i), hour)
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
			continue
		}
		assert.ErrorIs(t, err, store.ErrClaimed, "owner %d", i)
	}
	assert.Equal(t, 1, won, "owners that won the claim")
}

// testClaimRenews claims a run twice as its owner (a renewal), which keeps
// others out.
func testClaimRenews(t *testing.T, s store.Store) {
	require.NoError(t, s.Claim(t.Context(), "run", "a", hour))
	require.NoError(t, s.Claim(t.Context(), "run", "a", hour), "renewal by the owner")
	before := time.Now()
	err := s.Claim(t.Context(), "run", "b", hour)
	require.ErrorIs(t, err, store.ErrClaimed)
	var ce *store.ClaimError
	require.ErrorAs(t, err, &ce, "the holder is reported")
	assert.Equal(t, "run", ce.FlowID)
	assert.Equal(t, "a", ce.Owner)
	assert.True(t, ce.Until.After(before.Add(hour-time.Minute)), "the lease runs an hour: %v", ce.Until)
	assert.Contains(t, err.Error(), "a", "the error names the holder")
	require.NoError(t, s.Claim(t.Context(), "other", "b", hour), "another run is free")
}

// testClaimExpiry lets a lease run out, as a crashed owner's does: another
// owner takes the run over, and the first owner's renewal then fails.
func testClaimExpiry(t *testing.T, s store.Store) {
	require.NoError(t, s.Claim(t.Context(), "run", "a", hour))
	require.ErrorIs(t, s.Claim(t.Context(), "run", "b", hour), store.ErrClaimed)
	// a renews for a millisecond, then stops renewing.
	require.NoError(t, s.Claim(t.Context(), "run", "a", time.Millisecond))
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.Claim(t.Context(), "run", "b", hour)
		if err == nil {
			break
		}
		require.ErrorIs(t, err, store.ErrClaimed)
		require.True(t, time.Now().Before(deadline), "the expired lease was never taken over")
		time.Sleep(time.Millisecond)
	}
	assert.ErrorIs(t, s.Claim(t.Context(), "run", "a", hour), store.ErrClaimed, "the old owner lost the run")
}

// testClaimRelease releases leases: only the owner's release frees the run,
// and releasing what one does not hold does nothing.
func testClaimRelease(t *testing.T, s store.Store) {
	require.NoError(t, s.Claim(t.Context(), "run", "a", hour))
	require.NoError(t, s.Release(t.Context(), "run", "b"), "a release by another owner")
	require.ErrorIs(t, s.Claim(t.Context(), "run", "b", hour), store.ErrClaimed, "a still holds the run")

	require.NoError(t, s.Release(t.Context(), "run", "a"))
	require.NoError(t, s.Claim(t.Context(), "run", "b", hour), "a released run is free")
	require.NoError(t, s.Release(t.Context(), "run", "a"), "releasing a lease taken over")
	require.ErrorIs(t, s.Claim(t.Context(), "run", "a", hour), store.ErrClaimed, "b still holds the run")

	require.NoError(t, s.Release(t.Context(), "run", "b"))
	require.NoError(t, s.Release(t.Context(), "run", "b"), "releasing twice")
	require.NoError(t, s.Release(t.Context(), "never", "a"), "releasing a run never claimed")
}

// testClaimApartFromSnapshots claims runs with and without snapshots:
// leases neither create, show nor lose snapshots, and Save and Delete
// leave leases alone.
func testClaimApartFromSnapshots(t *testing.T, s store.Store) {
	require.NoError(t, s.Claim(t.Context(), "run", "a", hour))
	_, err := s.Load(t.Context(), "run")
	require.ErrorIs(t, err, store.ErrNotFound, "a lease is not a snapshot")
	all, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	assert.Empty(t, all)

	require.NoError(t, s.Save(t.Context(), Snapshot("run", 1)))
	require.NoError(t, s.Delete(t.Context(), "run"))
	require.ErrorIs(t, s.Claim(t.Context(), "run", "b", hour), store.ErrClaimed, "Delete kept the lease")
}

// testClaimRejectsInvalid claims with arguments no store accepts.
func testClaimRejectsInvalid(t *testing.T, s store.Store) {
	cases := []struct {
		name, id, owner string
		ttl             time.Duration
	}{
		{"empty flow id", "", "a", hour},
		{"empty owner", "run", "", hour},
		{"zero ttl", "run", "a", 0},
		{"negative ttl", "run", "a", -time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Claim(t.Context(), c.id, c.owner, c.ttl)
			require.Error(t, err)
			assert.False(t, errors.Is(err, store.ErrClaimed), "not a claim by someone else: %v", err)
		})
	}
	require.NoError(t, s.Claim(t.Context(), "run", "b", hour), "the rejected claims took nothing")
}

// testClaimCancelled claims and releases with a cancelled context: both
// fail with context.Canceled and change nothing.
func testClaimCancelled(t *testing.T, s store.Store) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	err := s.Claim(cancelled, "run", "a", hour)
	assert.ErrorIs(t, err, context.Canceled, "Claim")
	require.NoError(t, s.Claim(t.Context(), "run", "b", hour), "the cancelled claim took nothing")
	assert.ErrorIs(t, s.Release(cancelled, "run", "b"), context.Canceled, "Release")
	assert.ErrorIs(t, s.Claim(t.Context(), "run", "a", hour), store.ErrClaimed, "the cancelled release freed nothing")
}
