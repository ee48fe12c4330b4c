package flow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/troupe-dev/troupe/store"
)

// DefaultLease is how long a run's claim on its stored snapshot lasts
// unless renewed. A run renews its claim every third of the lease while
// it runs and releases it when it ends; the run of a process that died
// can be resumed once the lease has run out.
const DefaultLease = 30 * time.Second

// WithLease sets how long a run's claim on its stored snapshot lasts
// unless renewed (DefaultLease when d is not positive). Shorter leases let
// another process take over a crashed run sooner; the running process
// renews every third of d, so d must comfortably exceed the store's
// latency.
func WithLease(d time.Duration) Option { return func(e *Engine) { e.lease = d } }

// A claim is a run's lease on its store, held while the run runs: a
// second Resume of the run, or a Resume while it still runs, fails with
// store.ErrClaimed instead of running the same methods again.
type claim struct {
	st         store.Store
	id, owner  string
	lease      time.Duration
	stop, done chan struct{}
	// ctx is the run's context, which cancel ends when the lease is lost.
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// claimRun takes the lease of run id on st and keeps renewing it until
// release. The returned context is ctx, cancelled with a cause wrapping
// store.ErrClaimed when the lease is lost to another owner, or when it
// could not be renewed before it ran out.
func (e *Engine) claimRun(ctx context.Context, st store.Store, id string) (*claim, context.Context, error) {
	lease := e.lease
	if lease <= 0 {
		lease = DefaultLease
	}
	c := &claim{st: st, id: id, owner: newOwner(), lease: lease, stop: make(chan struct{}), done: make(chan struct{})}
	if err := st.Claim(ctx, id, c.owner, lease); err != nil {
		return nil, ctx, err
	}
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	go c.keep(e)
	return c, c.ctx, nil
}

// keep renews the lease every third of its length until the run ends.
func (c *claim) keep(e *Engine) {
	defer close(c.done)
	ctx := c.ctx
	every := c.lease / 3
	t := time.NewTicker(every)
	defer t.Stop()
	held := time.Now().Add(c.lease)
	for {
		select {
		case <-c.stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		asked := time.Now()
		rctx, cancel := context.WithTimeout(ctx, every)
		err := c.st.Claim(rctx, c.id, c.owner, c.lease)
		cancel()
		switch {
		case err == nil:
			held = asked.Add(c.lease)
		case errors.Is(err, store.ErrClaimed):
			c.cancel(fmt.Errorf("flow: run %s lost its claim: %w", c.id, err))
			return
		case ctx.Err() != nil:
			return
		case !time.Now().Add(every).Before(held):
			// The next renewal would come too late: stop before another
			// owner may take the run over.
			c.cancel(fmt.Errorf("flow: run %s: renewing its claim failed until the lease ran out (%w): %w", c.id, store.ErrClaimed, err))
			return
		default:
			e.logger.WarnContext(ctx, "renewing the run's claim failed; retrying", "run", c.id, "error", err)
		}
	}
}

// lost reports, once the run no longer holds its lease, why; nil while
// it does (or when the run has no claim).
func (c *claim) lost() error {
	if c == nil || c.ctx.Err() == nil {
		return nil
	}
	if cause := context.Cause(c.ctx); errors.Is(cause, store.ErrClaimed) {
		return cause
	}
	return nil
}

// release stops renewing and ends the lease, so the run can be resumed at
// once. A failed release is logged: the lease then runs out by itself.
func (c *claim) release(e *Engine) {
	close(c.stop)
	<-c.done
	lost := c.lost()
	c.cancel(nil)
	if lost != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), c.lease)
	defer cancel()
	if err := c.st.Release(ctx, c.id, c.owner); err != nil {
		e.logger.WarnContext(ctx, "releasing the run's claim failed; it ends when its lease runs out", "run", c.id, "error", err)
	}
}

// newOwner names a claimant: the host and process, for people reading a
// store, and random bits that tell apart two runs of one process.
func newOwner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}
