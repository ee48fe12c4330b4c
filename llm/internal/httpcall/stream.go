package httpcall

import (
	"context"
	"errors"

	"github.com/troupe-dev/troupe/llm"
)

// Stream runs attempt under the policy and hands the chunks it emits to
// yield. An attempt that fails before emitting anything is retried like
// any call; once a chunk went out the stream cannot be replayed, so a
// later error ends it. emit reports false when yield asked to stop; the
// attempt should then return nil. An error that ends the stream goes to
// yield unless yield had stopped it.
func (p Policy) Stream(ctx context.Context, yield func(llm.Chunk, error) bool, attempt func(ctx context.Context, emit func(llm.Chunk) bool) error) {
	yielded, stopped := false, false
	emit := func(c llm.Chunk) bool {
		yielded = true
		stopped = !yield(c, nil)
		return !stopped
	}
	err := p.Do(ctx, func(ctx context.Context) error {
		err := attempt(ctx, emit)
		if err != nil && yielded {
			return nonRetryable{err}
		}
		return err
	})
	if err != nil && !stopped {
		if nr, ok := errors.AsType[nonRetryable](err); ok {
			err = nr.err
		}
		yield(llm.Chunk{}, err)
	}
}

// nonRetryable hides an error from the retry loop.
type nonRetryable struct{ err error }

func (n nonRetryable) Error() string { return n.err.Error() }
