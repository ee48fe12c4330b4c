package action

import (
	"context"
	"sync"
)

// A ToolOutcome is what one tool call of a round came to: the text that
// goes back to the model and how the call ended. It is opaque: a
// [ToolRound] passes it on as the call returned it.
type ToolOutcome struct{ r callResult }

// A ToolRound runs the n tool calls of one model response: it calls
// call(ctx, i) once for every i from 0 to n-1 and returns what they
// returned, in call order (out[i] from call i), however it schedules them.
// No call writes anywhere else, so a round may run them on goroutines,
// workers or durable child steps of its own. A durable engine whose
// records are positional (DBOS numbers steps in call order) runs them with
// [SequentialTools], or starts them in call order its own way.
type ToolRound func(ctx context.Context, n int, call func(ctx context.Context, i int) ToolOutcome) []ToolOutcome

// ConcurrentTools runs the calls of a round on goroutines of their own;
// it is the default.
func ConcurrentTools(ctx context.Context, n int, call func(ctx context.Context, i int) ToolOutcome) []ToolOutcome {
	out := make([]ToolOutcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = call(ctx, i) })
	}
	wg.Wait()
	return out
}

// SequentialTools runs the calls of a round one after another, in call
// order.
func SequentialTools(ctx context.Context, n int, call func(ctx context.Context, i int) ToolOutcome) []ToolOutcome {
	out := make([]ToolOutcome, n)
	for i := range n {
		out[i] = call(ctx, i)
	}
	return out
}
