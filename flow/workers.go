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
	// jobs is unbuffered: a branch handed to it goes straight to a
	// worker waiting on it.
	jobs chan branch
	idle atomic.Int32 // workers waiting on jobs
	// idleFor is how long an unused worker lives on; 0 means workerIdle.
	idleFor time.Duration
}

// branch is one concurrent branch of a batch: the k-th of its methods.
// The zero branch tells a worker to exit.
type branch struct {
	b *batch
	k int
}

// idleWorkers bounds how many finished workers wait for work, and
// workerIdle how long an unused worker lives on.
const (
	idleWorkers = 256
	workerIdle  = 10 * time.Second
)

// do runs br on an idle worker, or on a new one when none is waiting.
func (w *workers) do(br branch) {
	w.once.Do(func() { w.jobs = make(chan branch) })
	select {
	case w.jobs <- br:
	default:
		go w.work(br)
	}
}

// work runs br, then waits for more branches while fewer than idleWorkers
// others wait. Each worker has a timer that fires every workerIdle; when
// its worker ran no branch since the last firing, it retires one waiting
// worker (any of them: they are alike) with the zero branch. A worker that
// exits stops its timer, so an unused engine is left with no workers.
func (w *workers) work(br branch) {
	period := w.idleFor
	if period == 0 {
		period = workerIdle
	}
	var busy, exited atomic.Bool
	var timer *time.Timer
	timer = time.AfterFunc(period, func() {
		if exited.Load() {
			return
		}
		if !busy.Swap(false) {
			select {
			case w.jobs <- branch{}:
			default: // nobody is waiting
			}
		}
		timer.Reset(period)
	})
	defer func() {
		exited.Store(true)
		timer.Stop()
	}()
	for br.b != nil {
		br.b.run(br.k)
		busy.Store(true)
		if w.idle.Add(1) > idleWorkers {
			w.idle.Add(-1)
			return // enough workers are waiting already
		}
		br = <-w.jobs
		w.idle.Add(-1)
	}
}
