package fakescript

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// Uses counts the answers of a reply limited to a number of times. The
// rule, the same for the fake model and the fake tools: times 0 means
// unlimited, and the answers of an unlimited reply are not counted (it
// never runs out, so there is nothing to count); a limited reply answers
// until its count reaches its times. Reset starts the count again.
type Uses struct {
	limit int64
	used  atomic.Int64
}

// Limit sets how many answers the reply may give; 0 is unlimited.
func (u *Uses) Limit(times int) { u.limit = int64(times) }

// Claim takes one use, reporting false when the times are used up. It is
// safe for concurrent use.
func (u *Uses) Claim() bool {
	if u.limit == 0 {
		return true
	}
	for {
		n := u.used.Load()
		if n >= u.limit {
			return false
		}
		if u.used.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Exhausted reports whether the times are used up.
func (u *Uses) Exhausted() bool { return u.limit > 0 && u.used.Load() >= u.limit }

// Used returns how many uses were claimed (0 for an unlimited reply).
func (u *Uses) Used() int { return int(u.used.Load()) }

// Reset forgets the uses claimed.
func (u *Uses) Reset() { u.used.Store(0) }

// Wait waits d (nothing when d is 0), returning early with ctx's error
// when it is cancelled.
func Wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// UsedUp says how many of entries have used up their times, as
// " (2 of 3 replies have used up their times)" to end an error's hint, or
// "" when none has.
func UsedUp[E interface{ Exhausted() bool }](entries []E) string {
	used := 0
	for _, e := range entries {
		if e.Exhausted() {
			used++
		}
	}
	if used == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of %d replies have used up their times)", used, len(entries))
}
