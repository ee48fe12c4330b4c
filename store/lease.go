package store

import (
	"errors"
	"fmt"
	"time"
)

// ValidateClaim reports the arguments of Store.Claim that no store
// accepts: an empty flow id or owner, or a ttl that is not positive.
// Implementations call it before taking a lease.
func ValidateClaim(flowID, owner string, ttl time.Duration) error {
	switch {
	case flowID == "":
		return errors.New("empty flow id")
	case owner == "":
		return errors.New("empty owner")
	case ttl <= 0:
		return errors.New("the lease must last longer than zero")
	}
	return nil
}

// A ClaimError is a claim refused because another owner holds the run's
// lease. It wraps ErrClaimed.
type ClaimError struct {
	FlowID string
	// Owner is the holder's owner string, as it gave it to Claim.
	Owner string
	// Until is when the holder's lease runs out unless renewed.
	Until time.Time
}

// Error names the holder and the end of its lease.
func (e *ClaimError) Error() string {
	return fmt.Sprintf("held by %s until %s: %v", e.Owner, e.Until.UTC().Format(time.RFC3339Nano), ErrClaimed)
}

// Unwrap returns ErrClaimed.
func (e *ClaimError) Unwrap() error { return ErrClaimed }
