package store

import (
	"errors"
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
