package flow

import (
	"context"
	"iter"
)

// Compile compiles def for this engine and reports every unresolvable
// action (unregistered refs, disabled scripts) before anything runs. The
// caller holds the Program and runs it; nothing of it is kept by the
// engine.
func (e *Engine) Compile(def *Definition) (*Program, error) {
	return e.compile(def)
}

// Definition returns the definition p was compiled from.
func (p *Program) Definition() *Definition { return p.def }

// Run runs the flow once with inputs merged into its initial state and
// returns the result. A failing method stops the run: its siblings are
// cancelled and the error, a *MethodError, names the method. Cancelling
// ctx stops the run promptly. A run a budget stopped (the error wraps a
// *BudgetError) also returns its partial result: the outputs, state and
// usage so far.
func (p *Program) Run(ctx context.Context, inputs map[string]any) (*Result, error) {
	return p.run(ctx, inputs, p.e.onEvent)
}

// Stream runs the flow like Run and yields its events as they happen. The
// last event is flow_finished, carrying the Result, unless the run fails:
// then the sequence ends with the error. Stopping the iteration early
// cancels the run.
func (p *Program) Stream(ctx context.Context, inputs map[string]any) iter.Seq2[Event, error] {
	return p.stream(ctx, func(ctx context.Context, sink func(Event)) error {
		_, err := p.run(ctx, inputs, sink)
		return err
	})
}

// Run compiles def (or takes it from the engine's bounded cache of
// recently run definitions) and runs it; see [Program.Run]. Services that
// run one definition many times should Compile it once and keep the
// Program instead.
func (e *Engine) Run(ctx context.Context, def *Definition, inputs map[string]any) (*Result, error) {
	p, err := e.program(def)
	if err != nil {
		return nil, err
	}
	return p.run(ctx, inputs, e.onEvent)
}

// Stream compiles def (or takes it from the engine's cache) and streams a
// run of it; see [Program.Stream].
func (e *Engine) Stream(ctx context.Context, def *Definition, inputs map[string]any) iter.Seq2[Event, error] {
	p, err := e.program(def)
	if err != nil {
		return func(yield func(Event, error) bool) { yield(Event{}, err) }
	}
	return p.Stream(ctx, inputs)
}
