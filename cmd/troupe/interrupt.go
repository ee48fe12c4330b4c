package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
)

// exitInterrupted is the exit code after Ctrl-C: 128 + SIGINT, the code a
// shell reports for a process the signal ended.
const exitInterrupted = 130

// errInterrupted is the cause of a context cancelled by Ctrl-C. A command
// returns it (wrapped or not) to exit with exitInterrupted.
var errInterrupted = errors.New("interrupted")

// interruptible returns a context that the first interrupt (Ctrl-C,
// SIGINT) cancels with errInterrupted, so that a run stops through its
// context. After that first interrupt the signal's default action is back:
// a second Ctrl-C ends troupe at once. stop releases the signal.
func interruptible(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			signal.Stop(sig)
			cancel(errInterrupted)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sig)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// interrupted returns errInterrupted when Ctrl-C cancelled ctx, else err.
func interrupted(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return errInterrupted
	}
	return err
}
