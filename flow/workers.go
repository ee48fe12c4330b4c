package flow

import (
	"sync"
	"time"
)

// workers runs the concurrent branches of an engine's runs on goroutines
// that outlive one branch: a finished worker waits a while for the next
// branch, so busy engines reuse goroutines (and their grown stacks)
// instead of starting one per branch. Idle workers exit on their own.
type workers struct {
	once sync.Once
	idle chan chan branch
}

// branch is one concurrent branch of a batch: the k-th of its methods.
type branch struct {
	b *batch
	k int
}

// idleWorkers bounds how many finished workers wait for work, and
// workerIdle how long each waits.
const (
	idleWorkers = 256
	workerIdle  = 10 * time.Second
)

// do runs fn on an idle worker, or on a new one when none is waiting.
func (w *workers) do(fn branch) {
	w.once.Do(func() { w.idle = make(chan chan branch, idleWorkers) })
	for {
		select {
		case ch := <-w.idle:
			select {
			case ch <- fn:
				return
			default:
				// That worker gave up waiting; try the next one.
				continue
			}
		default:
		}
		go w.work(fn)
		return
	}
}

func (w *workers) work(fn branch) {
	ch := make(chan branch)
	// The timer is armed once, not reset after each branch, which would
	// cost a timer update per branch. When it fires, a worker that ran a
	// branch since the last firing re-arms it; an idle one exits, between
	// one and two workerIdle periods after its last branch.
	timer := time.NewTimer(workerIdle)
	defer timer.Stop()
	for {
		fn.b.run(fn.k)
		select {
		case w.idle <- ch:
		default:
			return // enough workers are waiting already
		}
		if !w.wait(ch, timer, &fn) {
			return
		}
	}
}

// wait waits on ch for the next branch and reports whether one came.
func (w *workers) wait(ch chan branch, timer *time.Timer, fn *branch) bool {
	busy := true // a branch ran since the timer was armed or last fired
	for {
		select {
		case *fn = <-ch:
			return true
		case <-timer.C:
			if !busy {
				return false
			}
			busy = false
			timer.Reset(workerIdle)
		}
	}
}
