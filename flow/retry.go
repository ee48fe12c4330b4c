package flow

import (
	"context"
	"errors"
	"time"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
)

// ModelRetry says how the engine itself retries agents' model calls; see
// [WithModelRetries]. Zero fields take the defaults.
type ModelRetry struct {
	// MaxAttempts is the number of attempts, the first included
	// (default 3).
	MaxAttempts int
	// BaseDelay is the wait before the second attempt, doubled for each
	// further one (default 500ms). A provider's Retry-After replaces it.
	BaseDelay time.Duration
	// MaxDelay caps a wait (default 30s); a provider asking for longer
	// ends the retries with its error.
	MaxDelay time.Duration
}

// WithModelRetries makes the engine own the retries of agents' model
// calls: each call runs under [llm.WithoutRetries], so the provider tries
// once, and the engine retries the errors [llm.IsRetryable] accepts (rate
// limits, 5xx, network timeouts) with exponential back-off, without
// jitter, waiting on the engine's clock ([WithClock]). The retries happen
// inside the interceptors, so a durable engine records one result per
// model call, retries included, and waits on a clock it can make durable.
func WithModelRetries(r ModelRetry) Option {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 3
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = 500 * time.Millisecond
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = 30 * time.Second
	}
	return func(e *Engine) { e.retry = &r }
}

// retried returns next made under llm.WithoutRetries and retried by r on
// clock c.
func (r *ModelRetry) retried(c action.Clock, next func(context.Context) (any, error)) func(context.Context) (any, error) {
	if c == nil {
		c = action.SystemClock{}
	}
	return func(ctx context.Context) (any, error) {
		ctx = llm.WithoutRetries(ctx)
		delay := r.BaseDelay
		for attempt := 1; ; attempt++ {
			v, err := next(ctx)
			if err == nil || attempt >= r.MaxAttempts || !llm.IsRetryable(err) {
				return v, err
			}
			wait := min(delay, r.MaxDelay)
			if ae, ok := errors.AsType[*llm.APIError](err); ok && ae.RetryAfter > 0 {
				if ae.RetryAfter > r.MaxDelay {
					return v, err
				}
				wait = ae.RetryAfter
			}
			if serr := c.Sleep(ctx, wait); serr != nil {
				return v, errors.Join(err, serr)
			}
			delay *= 2
		}
	}
}
