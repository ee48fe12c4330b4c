package flow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
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
func WithLease(d time.Duration) Option { return func(e *Engine) { e.claims.lease = d } }

// claims is how an engine claims runs: for how long, and as whom.
type claims struct {
	lease time.Duration
	once  sync.Once
	// self names this process: its host and pid, and on Linux a scope
	// that processes which see the same pids share.
	host  string
	pid   int
	scope string
}

// owner returns a new owner string for one claim:
// host/pid/nonce[/scope]. The nonce tells apart two runs of one process.
func (c *claims) owner() string {
	c.once.Do(func() {
		c.host, _ = os.Hostname()
		if c.host == "" || strings.Contains(c.host, "/") {
			c.host = "unknown-host"
		}
		c.pid, c.scope = os.Getpid(), machineScope()
	})
	var b [6]byte
	_, _ = rand.Read(b[:])
	owner := fmt.Sprintf("%s/%d/%s", c.host, c.pid, hex.EncodeToString(b[:]))
	if c.scope != "" {
		owner += "/" + c.scope
	}
	return owner
}

// gone reports whether owner names a process of this machine (the same
// boot, the same pid namespace) that no longer exists: its claim can be
// taken over at once instead of when its lease runs out. Where that cannot
// be known, nothing is gone.
func (c *claims) gone(owner string) bool {
	parts := strings.Split(owner, "/")
	if c.scope == "" || len(parts) != 4 || parts[3] != c.scope {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	return err == nil && pid > 0 && pid != c.pid && processGone(pid)
}

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
// release; a lease held by a dead process of this machine is taken over.
// The returned context is ctx, cancelled with a cause wrapping
// store.ErrClaimed when the lease is lost to another owner, or when it
// could not be renewed before it ran out.
func (e *Engine) claimRun(ctx context.Context, st store.Store, id string) (*claim, context.Context, error) {
	lease := e.claims.lease
	if lease <= 0 {
		lease = DefaultLease
	}
	c := &claim{st: st, id: id, owner: e.claims.owner(), lease: lease, stop: make(chan struct{}), done: make(chan struct{})}
	err := st.Claim(ctx, id, c.owner, lease)
	var held *store.ClaimError
	if errors.As(err, &held) && e.claims.gone(held.Owner) {
		// The holder was a process of this machine that died (kill -9, a
		// crash): take the run over now rather than when its lease ends.
		if err = st.Release(ctx, id, held.Owner); err == nil {
			e.logger.InfoContext(ctx, "taking over the claim of a process that died", "run", id, "owner", held.Owner)
			err = st.Claim(ctx, id, c.owner, lease)
		}
	}
	if err != nil {
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
			c.cancel(fmt.Errorf("flow: run %s: its claim could not be renewed before it ran out, so another process may take the run over (%w): %w",
				c.id, store.ErrClaimed, err))
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
