package httpcall

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// Defaults of a [Policy].
const (
	DefaultMaxAttempts = 3
	DefaultBaseDelay   = 500 * time.Millisecond
	DefaultMaxDelay    = 30 * time.Second
)

// A Policy says how often and how patiently a call is retried. Zero fields
// take the defaults.
type Policy struct {
	// MaxAttempts is the number of attempts, the first included.
	MaxAttempts int
	// BaseDelay is the wait before the second attempt; it doubles with each
	// further attempt, with up to 50% random jitter taken off.
	BaseDelay time.Duration
	// MaxDelay caps a wait, a Retry-After included: a server asking for a
	// longer wait ends the retries with its error.
	MaxDelay time.Duration
	// Sleep waits d or until ctx is done; nil uses a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p Policy) withDefaults() Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

// Do calls fn until it succeeds, fails with an error [llm.IsRetryable] does
// not accept, the attempts are used up, or ctx is done. Between attempts it
// waits the backoff delay, or the server's Retry-After when the error carries
// one. When ctx ends during a wait, Do returns the last error joined with the
// context's error. Under [llm.WithoutRetries] it makes one attempt.
func (p Policy) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	p = p.withDefaults()
	if llm.RetriesDisabled(ctx) {
		p.MaxAttempts = 1
	}
	var err error
	for attempt := 1; ; attempt++ {
		if err = fn(ctx); err == nil || !llm.IsRetryable(err) || attempt >= p.MaxAttempts {
			return err
		}
		wait, ok := p.Delay(attempt, retryAfter(err))
		if !ok {
			return err
		}
		if dl, has := ctx.Deadline(); has && time.Until(dl) < wait {
			return err // the wait would outlive the caller: give up now
		}
		if serr := p.Sleep(ctx, wait); serr != nil {
			return errors.Join(err, serr)
		}
	}
}

// Delay returns the wait after the given failed attempt (1 for the first):
// retryAfter when positive, else BaseDelay*2^(attempt-1) less up to 50%
// jitter, capped at MaxDelay. It reports false when retryAfter exceeds
// MaxDelay.
func (p Policy) Delay(attempt int, retryAfter time.Duration) (time.Duration, bool) {
	p = p.withDefaults()
	if retryAfter > 0 {
		return retryAfter, retryAfter <= p.MaxDelay
	}
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	d -= time.Duration(rand.Int64N(int64(d)/2 + 1))
	return d, true
}

func retryAfter(err error) time.Duration {
	if ae, ok := errors.AsType[*llm.APIError](err); ok {
		return ae.RetryAfter
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// ForConfig returns p with MaxAttempts taken from the configuration's
// max_retries extra (CrewAI's spelling: retries after the first attempt)
// when p leaves it unset. A max_retries that is not a non-negative whole
// number (see [llm.Config.ExtraInt]) is an error, even when p sets
// MaxAttempts.
func (p Policy) ForConfig(cfg llm.Config) (Policy, error) {
	n, ok, err := cfg.ExtraInt("max_retries")
	if err != nil {
		return p, err
	}
	if ok && p.MaxAttempts == 0 {
		p.MaxAttempts = n + 1
	}
	return p, nil
}
