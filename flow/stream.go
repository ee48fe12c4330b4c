package flow

import (
	"context"
	"iter"
)

// Stream runs def like Run and yields its events as they happen. The last
// event is flow_finished, carrying the Result, unless the run fails: then
// the sequence ends with the error. Stopping the iteration early cancels
// the run.
func (e *Engine) Stream(ctx context.Context, def *Definition, inputs map[string]any) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan Event, 64)
		done := make(chan error, 1)
		go func() {
			_, err := e.run(ctx, def, inputs, func(ev Event) {
				if e.onEvent != nil {
					e.onEvent(ev)
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
