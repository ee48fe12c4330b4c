package flow

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// An Invocation describes one method invocation of a driven run well
// enough to perform it in another process: which method, its place in the
// run (for effect keys), what triggered it, and the run's state and
// outputs when it started. Every field is data that a durable engine's
// codec carries, except Trigger, which may be a method's output (an
// agent's result) and needs a codec that keeps its text.
type Invocation struct {
	RunID  string
	Flow   string
	Method string
	// Invocation counts the method's runs in the run, from 1.
	Invocation int
	Trigger    any
	// State and Outputs are copies of the run's state and of the outputs
	// of the methods that had finished.
	State   map[string]any
	Outputs map[string]any
}

// Key returns the invocation's effect key, "run/method#invocation", the
// key of its [Job].
func (inv Invocation) Key() string {
	return Effect{RunID: inv.RunID, Method: inv.Method, Invocation: inv.Invocation, Kind: EffectMethod}.Key()
}

// An InvokeResult is what an invoked method's action returned and how it
// changed the state.
type InvokeResult struct {
	Output any
	Patch  StatePatch
}

// Invocation returns the description of job t, with copies of the run's
// state and outputs as they are now: call it when the job starts. t must
// be a method job of d that waits for its outcome.
func (d *Driver) Invocation(t *Job) (Invocation, error) {
	if t == nil || t.done || t.Effect.Kind != EffectMethod || t.run == nil {
		return Invocation{}, fmt.Errorf("flow: the job is not a method invocation that waits for its outcome")
	}
	r := d.r
	r.mu.Lock()
	state, err := jsondata.CloneMap(r.state())
	var outputs map[string]any
	if err == nil {
		outputs, err = jsondata.CloneMap(r.res.Outputs)
	}
	r.mu.Unlock()
	if err != nil {
		return Invocation{}, fmt.Errorf("flow: job %s: copy the run's data: %w", t.Effect.Key(), err)
	}
	e := t.Effect
	return Invocation{RunID: e.RunID, Flow: e.Flow, Method: e.Method, Invocation: e.Invocation, Trigger: t.Trigger,
		State: state, Outputs: outputs}, nil
}

// Invoke performs one method invocation of def outside the run that asked
// for it: it runs the method's action over a copy of inv's state and
// outputs, with the effect keys [Job.Run] would give its model and tool
// calls (the engine's interceptors see them), and returns the action's
// output and its change to the state. The method's own interceptor, its
// router outcome and its human feedback belong to the driver, as with
// Job.Run. Memory and budgets are this engine's, not the run's.
func (e *Engine) Invoke(ctx context.Context, def *Definition, inv Invocation) (InvokeResult, error) {
	p, err := e.program(def)
	if err != nil {
		return InvokeResult{}, err
	}
	i, ok := p.byName[inv.Method]
	if !ok {
		return InvokeResult{}, fmt.Errorf("flow: invoke %s: flow %q has no method %q", inv.Key(), def.Name, inv.Method)
	}
	cm := p.methods[i]
	state, err := jsondata.CloneMap(inv.State)
	if err == nil && state == nil {
		state = map[string]any{}
	}
	var before, outputs map[string]any
	if err == nil {
		before, err = jsondata.CloneMap(state)
	}
	if err == nil {
		outputs, err = jsondata.CloneMap(inv.Outputs)
	}
	if err != nil {
		return InvokeResult{}, fmt.Errorf("flow: invoke %s: copy the run's data: %w", inv.Key(), err)
	}
	r := newRun(e, p, state, inv.RunID)
	if outputs != nil {
		r.res.Outputs = outputs
	}
	sc := &effectScope{call: Effect{RunID: inv.RunID, Flow: def.Name, Method: cm.name, Kind: EffectMethod, Invocation: inv.Invocation}}
	out, err := cm.run(context.WithValue(ctx, effectScopeKey{}, sc), r, cm.scope, inv.Trigger)
	if err != nil {
		return InvokeResult{}, err
	}
	patch, err := DiffState(before, r.stateHandle.Snapshot())
	if err != nil {
		return InvokeResult{}, fmt.Errorf("flow: invoke %s: %w", inv.Key(), err)
	}
	return InvokeResult{Output: out, Patch: patch}, nil
}
