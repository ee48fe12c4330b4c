package flow

import (
	"context"
	"iter"
)

// stream calls run with a sink and yields the events it receives as they
// happen, then the run's error if any. Stopping the iteration early
// cancels the run.
func (p *Program) stream(ctx context.Context, run func(ctx context.Context, sink func(Event)) error) iter.Seq2[Event, error] {
	onEvent := p.e.onEvent
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan Event, 64)
		done := make(chan error, 1)
		go func() {
			err := run(ctx, func(ev Event) {
				if onEvent != nil {
					onEvent(ev)
				}
				select {
				case events <- ev:
				case <-ctx.Done():
				}
			})
			close(events)
			done <- err
		}()
		for ev := range events {
			if !yield(ev, nil) {
				cancel()
				for range events {
				}
				<-done
				return
			}
		}
		if err := <-done; err != nil {
			yield(Event{}, err)
		}
	}
}
