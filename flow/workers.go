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
	idle chan chan func()
}

// idleWorkers bounds how many finished workers wait for work, and
// workerIdle how long each waits.
const (
	idleWorkers = 256
	workerIdle  = 10 * time.Second
)

// do runs fn on an idle worker, or on a new one when none is waiting.
func (w *workers) do(fn func()) {
	w.once.Do(func() { w.idle = make(chan chan func(), idleWorkers) })
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

func (w *workers) work(fn func()) {
	ch := make(chan func())
	timer := time.NewTimer(workerIdle)
	defer timer.Stop()
	for {
		fn()
		select {
		case w.idle <- ch:
		default:
			return // enough workers are waiting already
		}
		timer.Reset(workerIdle)
		select {
		case fn = <-ch:
		case <-timer.C:
			return
		}
	}
}
