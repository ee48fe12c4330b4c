package memory

import (
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Options configure a Memory. New starts from the defaults documented on
// each field and applies the Option functions in order.
type Options struct {
	// Embedder turns text into vectors; default LexicalEmbedder{}.
	Embedder Embedder
	// Model, when set, files records the caller did not fully describe
	// (one call per record) and consolidates similar records when
	// Consolidate is on. Nil (the default) means memory never calls an LLM.
	Model Model
	// Consolidate lets Model merge a new record with stored records at
	// least ConsolidationThreshold similar to it (one call per record).
	// Default off.
	Consolidate bool
	// RootScope is where this Memory files and finds records; every
	// scope given to it is relative to the root. Default "/".
	RootScope string
	// Ranking orders recall results; default DefaultRanking().
	Ranking Ranking
	// DuplicateThreshold is the similarity from which a new record counts
	// as a duplicate of a stored one and is not written; default 0.98.
	DuplicateThreshold float64
	// ConsolidationThreshold is the similarity from which stored records
	// are offered to the Model for consolidation; default 0.85.
	ConsolidationThreshold float64
	// ConsolidationLimit is how many similar records a write looks at;
	// default 5.
	ConsolidationLimit int
	// DefaultImportance is the importance of records whose caller gave
	// none and no Model chose one; default 0.5.
	DefaultImportance float64
	// Now is the clock; default time.Now. Inject one to make recency exact.
	Now func() time.Time
	// OnSpend, when set, is called after every Model call and every
	// Embedder call that reported a cost, from the goroutine that made it.
	OnSpend func(Spend)
	// NewID makes record IDs; default 26 random base32 characters.
	NewID func() string
}

// An Option changes Options.
type Option func(*Options)

// WithEmbedder sets Options.Embedder.
func WithEmbedder(e Embedder) Option { return func(o *Options) { o.Embedder = e } }

// WithModel sets Options.Model.
func WithModel(m Model) Option { return func(o *Options) { o.Model = m } }

// WithConsolidation turns on Options.Consolidate.
func WithConsolidation() Option { return func(o *Options) { o.Consolidate = true } }

// WithRootScope sets Options.RootScope.
func WithRootScope(scope string) Option { return func(o *Options) { o.RootScope = scope } }

// WithRanking sets Options.Ranking.
func WithRanking(r Ranking) Option { return func(o *Options) { o.Ranking = r } }

// WithClock sets Options.Now.
func WithClock(now func() time.Time) Option { return func(o *Options) { o.Now = now } }

// WithSpendObserver sets Options.OnSpend.
func WithSpendObserver(fn func(Spend)) Option { return func(o *Options) { o.OnSpend = fn } }

// WithIDs sets Options.NewID.
func WithIDs(newID func() string) Option { return func(o *Options) { o.NewID = newID } }

// DefaultOptions returns the defaults New starts from.
func DefaultOptions() Options {
	return Options{
		Embedder:               LexicalEmbedder{},
		RootScope:              "/",
		Ranking:                DefaultRanking(),
		DuplicateThreshold:     0.98,
		ConsolidationThreshold: 0.85,
		ConsolidationLimit:     5,
		DefaultImportance:      0.5,
		Now:                    time.Now,
		NewID:                  rand.Text,
	}
}

func (o Options) validate() error {
	var errs []error
	if o.Embedder == nil {
		errs = append(errs, errors.New("memory: options: Embedder is nil"))
	}
	if o.Now == nil || o.NewID == nil {
		errs = append(errs, errors.New("memory: options: Now and NewID must be set"))
	}
	r := o.Ranking
	if r.Similarity < 0 || r.Recency < 0 || r.Importance < 0 || r.HalfLife < 0 {
		errs = append(errs, fmt.Errorf("memory: options: ranking weights and half-life must not be negative, got %+v", r))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"DuplicateThreshold", o.DuplicateThreshold},
		{"ConsolidationThreshold", o.ConsolidationThreshold},
		{"DefaultImportance", o.DefaultImportance},
	} {
		if !(f.v >= 0 && f.v <= 1) {
			errs = append(errs, fmt.Errorf("memory: options: %s %v outside [0, 1]", f.name, f.v))
		}
	}
	if o.ConsolidationLimit < 1 {
		errs = append(errs, fmt.Errorf("memory: options: ConsolidationLimit %d, want at least 1", o.ConsolidationLimit))
	}
	if o.Consolidate && o.Model == nil {
		errs = append(errs, errors.New("memory: options: Consolidate needs a Model"))
	}
	return errors.Join(errs...)
}

// A Memory files records in a Store and recalls them. It is safe for
// concurrent use; writes are serialised so duplicate detection is exact.
type Memory struct {
	root string
	*core
}

// core is what a Memory and its Sub views share.
type core struct {
	store   Store
	opts    Options
	writeMu sync.Mutex

	spentMu sync.Mutex
	spent   Spending
}

// New returns a Memory over store.
func New(store Store, opts ...Option) (*Memory, error) {
	if store == nil {
		return nil, errors.New("memory: store is nil")
	}
	o := DefaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return &Memory{root: CleanScope(o.RootScope), core: &core{store: store, opts: o}}, nil
}

// Sub returns a view of m rooted at scope (relative to m's root). The view
// shares m's store, options, write lock and spending.
func (m *Memory) Sub(scope string) *Memory {
	return &Memory{root: JoinScope(m.root, scope), core: m.core}
}

// Root returns the scope this Memory files and finds records under.
func (m *Memory) Root() string { return m.root }

// Store returns the store m writes to.
func (m *Memory) Store() Store { return m.store }

// Usage returns what m (with all its Sub views) has spent so far.
func (m *Memory) Usage() Spending {
	m.spentMu.Lock()
	defer m.spentMu.Unlock()
	return m.spent
}

// now is the injected clock, in UTC without a monotonic reading so that
// times compare equal after a round trip through any store.
func (c *core) now() time.Time { return c.opts.Now().Round(0).UTC() }

func (c *core) report(s Spend) {
	c.spentMu.Lock()
	if s.Kind == SpendEmbed {
		c.spent.Embedding = c.spent.Embedding.Add(s.Usage)
	} else {
		c.spent.Model = c.spent.Model.Add(s.Usage)
	}
	c.spentMu.Unlock()
	if c.opts.OnSpend != nil {
		c.opts.OnSpend(s)
	}
}

// scope resolves a caller's scope against the root.
func (m *Memory) scope(s string) string { return JoinScope(m.root, s) }
