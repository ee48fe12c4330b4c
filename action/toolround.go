package action

import (
	"context"
	"sync"
)

// A ToolRound runs the n tool calls of one model response: it calls
// call(ctx, i) once for every i from 0 to n-1 and returns when all have
// returned. Results go by position, so the agent sees them in call order
// however the round schedules them. A durable engine whose records are
// positional (DBOS numbers steps in call order) runs them with
// [SequentialTools], or starts them in call order its own way.
type ToolRound func(ctx context.Context, n int, call func(ctx context.Context, i int))

// ConcurrentTools runs the calls of a round on goroutines of their own;
// it is the default.
func ConcurrentTools(ctx context.Context, n int, call func(ctx context.Context, i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { call(ctx, i) })
	}
	wg.Wait()
}

// SequentialTools runs the calls of a round one after another, in call
// order.
func SequentialTools(ctx context.Context, n int, call func(ctx context.Context, i int)) {
	for i := range n {
		call(ctx, i)
	}
}
