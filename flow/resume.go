package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/troupe-dev/troupe/store"
)

// Resume continues a stored run: one paused for human feedback (feedback
// is the person's answer; "" takes the default outcome), or one whose
// process stopped between methods (feedback is ignored). Methods that
// completed before are not run again: their recorded outputs are replayed,
// so outputs.<method> of every earlier method is available. Resume refuses
// a definition that no longer has the methods the run went through.
func (e *Engine) Resume(ctx context.Context, def *Definition, flowID, feedback string) (*Result, error) {
	p, err := e.program(def)
	if err != nil {
		return nil, err
	}
	st := e.resumeStore(p)
	snap, err := st.Load(ctx, flowID)
	if err != nil {
		return nil, fmt.Errorf("flow: resume %s: %w", flowID, err)
	}
	if err := checkResumable(def, p, snap); err != nil {
		return nil, err
	}
	state := maps.Clone(snap.State)
	if state == nil {
		state = map[string]any{}
	}
	state["id"] = flowID
	r := newRun(e, p, state, flowID)
	if r.side == nil {
		r.side = new(runSide)
	}
	r.side.replay = newReplay(snap.Journal)
	r.side.home = st
	r.side.lastHF = snap.LastFeedback
	if snap.Status == store.StatusPaused && snap.Pending != nil {
		r.side.resumed, r.side.feedback = snap.Pending, &feedback
	}
	return r.start(ctx, nil, e.onEvent)
}

// resumeStore is where a definition's runs are saved.
func (e *Engine) resumeStore(p *program) store.Store {
	if p.flowStore != nil {
		return p.flowStore
	}
	for _, cm := range p.methods {
		if cm.persist != nil {
			return cm.persist.store
		}
	}
	return e.defaultStore()
}

// ErrDefinitionChanged reports a definition that cannot continue a stored
// run.
var ErrDefinitionChanged = errors.New("flow: the definition changed since the run was saved")

func checkResumable(def *Definition, p *program, snap *store.Snapshot) error {
	if snap.Status == store.StatusCompleted {
		return fmt.Errorf("flow: run %s already completed; start a new run instead", snap.FlowID)
	}
	if snap.Flow != "" && snap.Flow != def.Name {
		return fmt.Errorf("%w: run %s belongs to flow %q, not %q", ErrDefinitionChanged, snap.FlowID, snap.Flow, def.Name)
	}
	for _, e := range snap.Journal {
		if _, ok := p.byName[e.Method]; !ok {
			return fmt.Errorf("%w: method %q ran before the pause but is no longer declared", ErrDefinitionChanged, e.Method)
		}
	}
	if pf := snap.Pending; pf != nil {
		m := def.Method(pf.Method)
		if m == nil || m.HumanFeedback == nil {
			return fmt.Errorf("%w: the run waits for feedback on %q, which no longer asks for human feedback", ErrDefinitionChanged, pf.Method)
		}
	}
	return nil
}
