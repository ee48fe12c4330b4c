package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/troupe-dev/troupe/internal/jsondata"
	"github.com/troupe-dev/troupe/store"
)

// A Backend opens the store a persist block names with persistence_type;
// it receives the block's persistence map (e.g. {persistence_type: X,
// db_path: ...}).
type Backend func(settings map[string]any) (store.Store, error)

// WithStore sets the store for persist blocks that name no backend, and
// for Resume. Without one, the engine keeps snapshots in memory.
func WithStore(s store.Store) Option { return func(e *Engine) { e.store = s } }

// WithBackend registers a Backend under a persistence_type name, such as
// CrewAI's "SQLiteFlowPersistence" or a host's own.
func WithBackend(name string, b Backend) Option { return func(e *Engine) { e.backends[name] = b } }

// defaultStore returns the engine's store, creating an in-memory one.
func (e *Engine) defaultStore() store.Store {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.store == nil {
		e.store = store.NewMemory()
	}
	return e.store
}

// storeFor resolves the store of a persist block.
func (e *Engine) storeFor(def *Definition, p *Persist) (store.Store, error) {
	if p == nil || p.Backend == nil {
		return e.defaultStore(), nil
	}
	name := p.BackendType()
	b, ok := e.backends[name]
	if !ok {
		return nil, fmt.Errorf("Cannot resolve persistence backend %s from the flow definition for flow '%s' (register it with flow.WithBackend(%q, ...))", pyRepr(p.Backend), def.Name, name)
	}
	return b(p.Backend)
}

// persistence is the compiled persist setting of one method.
type persistence struct {
	store store.Store
}

// compilePersist resolves each method's effective persist block: its own,
// else the flow's.
func (e *Engine) compilePersist(p *Program) error {
	def := p.def
	cache := map[*Persist]store.Store{}
	resolve := func(pb *Persist) (store.Store, error) {
		if s, ok := cache[pb]; ok {
			return s, nil
		}
		s, err := e.storeFor(def, pb)
		if err != nil {
			return nil, err
		}
		cache[pb] = s
		return s, nil
	}
	if def.Persist != nil && def.Persist.Enabled {
		s, err := resolve(def.Persist)
		if err != nil {
			return err
		}
		p.flowStore = s
	}
	for _, cm := range p.methods {
		pb := def.Persist
		if cm.m.Persist != nil {
			pb = cm.m.Persist
		}
		if pb == nil || !pb.Enabled {
			continue
		}
		s, err := resolve(pb)
		if err != nil {
			return err
		}
		cm.persist = &persistence{store: s}
	}
	return nil
}

// saver writes a run's snapshots one at a time, in order, while the run
// holds its claim (when it has one).
type saver struct {
	mu    sync.Mutex
	claim *claim
}

// saveStore is where the program's runs save while they run: the store of
// flow-level persist, else that of the first method that persists; nil
// when no method persists.
func (p *Program) saveStore() store.Store {
	if p.flowStore != nil {
		return p.flowStore
	}
	for _, cm := range p.methods {
		if cm.persist != nil {
			return cm.persist.store
		}
	}
	return nil
}

// runSaved starts a run of a program whose runs save or may pause. The
// run first claims its id on the store it saves to (which checks that the
// store works before any method runs), so that no other process resumes
// it while it runs; then, with flow-level persistence and an id in the
// inputs, it starts from the state saved under that id, as CrewAI
// restores a flow.
func (e *Engine) runSaved(ctx context.Context, p *Program, inputs map[string]any, sink func(Event)) (*Result, error) {
	var (
		state map[string]any
		id    string
		err   error
	)
	if v, ok := inputs["id"]; ok && v != nil {
		id = fmt.Sprint(v)
	} else if state, id, err = p.state.initial(nil, inputs, e.logger, p.def.Name, e.ids); err != nil {
		return nil, err
	}
	c, ctx, err := e.claimRun(ctx, e.resumeStore(p), id)
	if err != nil {
		return nil, fmt.Errorf("flow: run %s: %w", id, err)
	}
	defer c.release(e)
	if state == nil {
		var stored map[string]any
		if p.flowStore != nil {
			if stored, err = e.restore(ctx, p, id); err != nil {
				return nil, err
			}
		}
		if state, id, err = p.state.initial(stored, inputs, e.logger, p.def.Name, e.ids); err != nil {
			return nil, err
		}
	}
	r := newRun(e, p, state, id)
	r.side.saves.claim = c
	return r.start(ctx, inputs, sink)
}

// restore returns the saved state of run id, or nil when the store holds
// no such run.
func (e *Engine) restore(ctx context.Context, p *Program, id string) (map[string]any, error) {
	snap, err := p.flowStore.Load(ctx, id)
	switch {
	case err == nil:
		return snap.State, nil
	case errors.Is(err, store.ErrNotFound):
		e.logger.InfoContext(ctx, "No flow state found for UUID: "+id, "flow", p.def.Name)
		return nil, nil
	}
	return nil, err
}

// snapshot captures the run as a store.Snapshot.
func (r *run) snapshot(method string, status store.Status) *store.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &store.Snapshot{
		FlowID: r.res.RunID, Flow: r.p.def.Name, DefinitionHash: r.p.hash.of(r.p.def), Status: status, Method: method,
		State: maps.Clone(r.state()), Outputs: maps.Clone(r.res.Outputs),
		Completed: append([]string(nil), r.res.Trace...), Journal: append([]store.JournalEntry(nil), r.side.journal...),
		LastFeedback: r.side.lastHF, Pending: r.side.pending, UpdatedAt: r.e.now().UTC(),
	}
}

// persist saves a snapshot after method completed, when its persist block
// is enabled.
func (r *run) persist(ctx context.Context, cm *cmethod) error {
	if cm.persist == nil {
		return nil
	}
	return r.save(ctx, cm.persist.store, cm.name, store.StatusRunning)
}

func (r *run) save(ctx context.Context, s store.Store, method string, status store.Status) error {
	if _, ok := r.res.State["id"]; !ok {
		return errors.New("Flow state must have an 'id' field for persistence")
	}
	r.side.saves.mu.Lock()
	defer r.side.saves.mu.Unlock()
	if err := r.side.saves.claim.lost(); err != nil {
		return fmt.Errorf("not saving the run after %q: %w", method, err)
	}
	if err := s.Save(context.WithoutCancel(ctx), r.snapshot(method, status)); err != nil {
		return fmt.Errorf("saving the run after %q: %w", method, err)
	}
	return nil
}

// storable reports state, or the output of the method that just ran, that
// no store can save (NaN, an infinity, a value that is not JSON data),
// naming where it is, so that the method fails before it counts as done.
// The caller holds r.mu.
func (r *run) storable(out any) error {
	var (
		buf    []byte
		badKey string
		bad    error
	)
	for k, v := range r.state() {
		var err error
		if buf, err = jsondata.Append(buf[:0], v); err != nil && (bad == nil || k < badKey) {
			badKey, bad = k, err
		}
	}
	if bad != nil {
		return fmt.Errorf("state.%s cannot be saved: %w", badKey, bad)
	}
	if _, err := jsondata.Append(buf[:0], out); err != nil {
		return fmt.Errorf("its output cannot be saved: %w", err)
	}
	return nil
}
