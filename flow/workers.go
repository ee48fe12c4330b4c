package flow

import (
	"sync"
	"sync/atomic"
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
	// A worker blocks on its channel alone, the cheapest wait there is.
	// Its idle timer fires every workerIdle: a worker that ran a branch
	// since the last firing stays; an idle one is sent the zero branch,
	// which tells it to exit, between one and two workerIdle periods
	// after its last branch. A dispatcher that picks an exited worker's
	// channel finds no receiver and tries the next.
	var busy, exited atomic.Bool
	var timer *time.Timer
	timer = time.AfterFunc(workerIdle, func() {
		if exited.Load() {
			return
		}
		if !busy.Swap(false) {
			select {
			case ch <- branch{}:
				return
			default: // running a branch right now
			}
		}
		timer.Reset(workerIdle)
	})
	defer func() {
		exited.Store(true)
		timer.Stop()
	}()
	for fn.b != nil {
		fn.b.run(fn.k)
		busy.Store(true)
		select {
		case w.idle <- ch:
		default:
			return // enough workers are waiting already
		}
		fn = <-ch
	}
}
