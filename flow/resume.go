package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/troupe-dev/troupe/store"
)

// A ResumeRequest names the stored run Resume continues and how.
type ResumeRequest struct {
	// FlowID is the id of the stored run.
	FlowID string
	// Feedback is the person's answer to the question a paused run waits
	// on; "" takes the default outcome. A run that stopped between methods
	// ignores it.
	Feedback string
	// Force continues the run even though the definition changed since
	// the run was saved (its fingerprint differs): methods that ran
	// before keep their recorded outputs, the others run as the new
	// definition says. A definition that no longer declares a method the
	// run went through is refused all the same.
	Force bool
}

// Resume compiles def (or takes it from the engine's cache) and continues
// one of its stored runs; see [Program.Resume].
func (e *Engine) Resume(ctx context.Context, def *Definition, req ResumeRequest) (*Result, error) {
	p, err := e.program(def)
	if err != nil {
		return nil, err
	}
	return p.Resume(ctx, req)
}

// Resume continues a stored run: one paused for human feedback, or one
// whose process stopped between methods. Methods that completed before
// are not run again: their recorded outputs are replayed, so
// outputs.<method> of every earlier method is available.
//
// Resume refuses, with an error wrapping ErrDefinitionChanged, a
// definition that differs from the one the run was saved with, unless
// req.Force is set. It first claims the run on its store, so a second
// Resume of the same run, or a Resume while the run still runs in another
// process, fails with an error wrapping store.ErrClaimed (see WithLease).
func (p *Program) Resume(ctx context.Context, req ResumeRequest) (*Result, error) {
	e, def := p.e, p.def
	st := e.resumeStore(p)
	c, ctx, err := e.claimRun(ctx, st, req.FlowID)
	if err != nil {
		return nil, fmt.Errorf("flow: resume %s: %w", req.FlowID, err)
	}
	defer c.release(e)
	// Loaded under the claim: a resume that ran before this one has saved
	// its outcome by now.
	snap, err := st.Load(ctx, req.FlowID)
	if err != nil {
		return nil, fmt.Errorf("flow: resume %s: %w", req.FlowID, err)
	}
	if err := checkResumable(def, p, snap, req.Force); err != nil {
		return nil, err
	}
	state := maps.Clone(snap.State)
	if state == nil {
		state = map[string]any{}
	}
	state["id"] = req.FlowID
	r := newRun(e, p, state, req.FlowID)
	if r.side == nil {
		r.side = new(runSide)
	}
	r.side.saves.claim = c
	r.side.replay = newReplay(snap.Journal)
	r.side.home = st
	r.side.lastHF = snap.LastFeedback
	if snap.Status == store.StatusPaused && snap.Pending != nil {
		feedback := req.Feedback
		r.side.resumed, r.side.feedback = snap.Pending, &feedback
	}
	return r.start(ctx, nil, e.onEvent)
}

// resumeStore is where a definition's runs are saved: their store while
// they run, else (runs that save only when they pause) the engine's.
func (e *Engine) resumeStore(p *Program) store.Store {
	if st := p.saveStore(); st != nil {
		return st
	}
	return e.defaultStore()
}

// ErrDefinitionChanged reports a definition that cannot continue a stored
// run.
var ErrDefinitionChanged = errors.New("flow: the definition changed since the run was saved")

func checkResumable(def *Definition, p *Program, snap *store.Snapshot, force bool) error {
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
	if hash := p.hash.of(def); !force && snap.DefinitionHash != "" && snap.DefinitionHash != hash {
		return fmt.Errorf("%w: run %s was saved by flow %q with fingerprint %s, this definition's is %s; "+
			"resume with Force (troupe resume --force) to continue with the edited definition",
			ErrDefinitionChanged, snap.FlowID, def.Name, snap.DefinitionHash, hash)
	}
	return nil
}
