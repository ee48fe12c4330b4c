package flow

import (
	"sync"
	"sync/atomic"
	"time"
)

// workers are the goroutines that help with an engine's concurrent
// batches (see run.parallel). They outlive one batch: a finished worker
// waits a while for the next, so busy engines reuse goroutines (and their
// grown stacks) instead of starting one per batch: a third of the
// instructions of a BenchmarkW2Fanout8 run went to starting goroutines and
// growing their stacks before. Idle workers exit on their own.
type workers struct {
	once sync.Once
	// jobs is unbuffered: a batch handed to it goes straight to a
	// worker waiting on it.
	jobs chan *batch
	idle atomic.Int32 // workers waiting on jobs
	// idleFor is how long an unused worker lives on; 0 means workerIdle.
	idleFor time.Duration
}

// idleWorkers bounds how many finished workers wait for work, and
// workerIdle how long an unused worker lives on.
const (
	idleWorkers = 256
	workerIdle  = 10 * time.Second
)

// do sends an idle worker, or a new one when none is waiting, to help
// with b.
func (w *workers) do(b *batch) {
	w.once.Do(func() { w.jobs = make(chan *batch) })
	select {
	case w.jobs <- b:
	default:
		go w.work(b)
	}
}

// work helps with b, then waits for more batches while fewer than
// idleWorkers others wait. Each worker has a timer that fires every
// workerIdle; when its worker helped with nothing since the last firing,
// it retires one waiting worker (any of them: they are alike) with a nil
// batch. A worker that exits stops its timer, so an unused engine is left
// with no workers.
func (w *workers) work(b *batch) {
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
			case w.jobs <- nil:
			default: // nobody is waiting
			}
		}
		timer.Reset(period)
	})
	defer func() {
		exited.Store(true)
		timer.Stop()
	}()
	for b != nil {
		b.help()
		busy.Store(true)
		if w.idle.Add(1) > idleWorkers {
			w.idle.Add(-1)
			return // enough workers are waiting already
		}
		b = <-w.jobs
		w.idle.Add(-1)
	}
}
