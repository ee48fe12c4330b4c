package flow_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/store"
)

// reviewHead drafts, then pauses in review; the answer is the event
// publish or shelve.
const reviewHead = `
schema: crewai.flow/v1
name: Review
methods:
  draft: {start: true, do: {call: expression, expr: "'draft text'"}}
  review:
    listen: draft
    do: {call: expression, expr: outputs.draft}
    human_feedback: {message: "Publish?", emit: [publish, shelve], default_outcome: shelve}
`

// reviewFlow routes the answer to the code handlers t:publish and
// t:shelve.
const reviewFlow = reviewHead + `  announce: {listen: publish, do: {ref: "t:publish"}}
  archive: {listen: shelve, do: {ref: "t:shelve"}}
`

// gate is a handler that blocks its first call until opened, and counts
// its calls.
type gate struct {
	calls   atomic.Int32
	entered chan struct{}
	open    chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan struct{}), open: make(chan struct{})} }

func (g *gate) handler(out string) flow.Handler {
	return func(ctx context.Context, _ flow.Input) (any, error) {
		if g.calls.Add(1) == 1 {
			close(g.entered)
			select {
			case <-g.open:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return out, nil
	}
}

func counter(n *atomic.Int32, out string) flow.Handler {
	return func(context.Context, flow.Input) (any, error) {
		n.Add(1)
		return out, nil
	}
}

// TestResumeTwiceAtOnceRunsOneBranch resumes a paused review while another
// resume of it is still running: the second fails with store.ErrClaimed,
// so only the first answer's branch runs.
func TestResumeTwiceAtOnceRunsOneBranch(t *testing.T) {
	st := store.NewMemory()
	publish := newGate()
	var shelved atomic.Int32
	eng := flow.NewEngine(flow.WithStore(st),
		flow.WithCode("t:publish", publish.handler("Published")),
		flow.WithCode("t:shelve", counter(&shelved, "Shelved")))
	def := mustParse(t, reviewFlow)
	paused, err := eng.Run(t.Context(), def, nil)
	require.NoError(t, err)
	require.NotNil(t, paused.Pending)

	first := make(chan error, 1)
	go func() {
		res, err := eng.Resume(t.Context(), def, flow.ResumeRequest{FlowID: paused.RunID, Feedback: "publish"})
		if err == nil && res.Output != "Published" {
			err = errors.New("first resume: unexpected output")
		}
		first <- err
	}()
	<-publish.entered
	_, err = eng.Resume(t.Context(), def, flow.ResumeRequest{FlowID: paused.RunID, Feedback: "shelve"})
	require.ErrorIs(t, err, store.ErrClaimed)
	assert.Contains(t, err.Error(), paused.RunID)
	close(publish.open)
	require.NoError(t, <-first)

	assert.Equal(t, int32(1), publish.calls.Load())
	assert.Equal(t, int32(0), shelved.Load(), "the losing answer's branch never ran")
	_, err = eng.Resume(t.Context(), def, flow.ResumeRequest{FlowID: paused.RunID, Feedback: "shelve"})
	assert.ErrorContains(t, err, "already completed", "a later resume sees the outcome")
}

// TestResumeRacesRunOneBranch lets many resumes of one paused run start
// together. Each branch waits until every resume has either reached a
// branch or returned, so no resume can finish before the others tried:
// exactly one continues the run, every other is claimed out.
func TestResumeRacesRunOneBranch(t *testing.T) {
	const resumes = 8
	var (
		settled          atomic.Int32
		all              = make(chan struct{})
		published, shelf atomic.Int32
	)
	settle := func() {
		if settled.Add(1) == resumes {
			close(all)
		}
	}
	branch := func(n *atomic.Int32, out string) flow.Handler {
		return func(ctx context.Context, _ flow.Input) (any, error) {
			n.Add(1)
			settle()
			select {
			case <-all:
				return out, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				return nil, errors.New("the other resumes never returned")
			}
		}
	}
	eng := flow.NewEngine(flow.WithStore(store.NewMemory()),
		flow.WithCode("t:publish", branch(&published, "Published")),
		flow.WithCode("t:shelve", branch(&shelf, "Shelved")))
	def := mustParse(t, reviewFlow)
	paused, err := eng.Run(t.Context(), def, nil)
	require.NoError(t, err)

	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, resumes)
	)
	for i := range resumes {
		wg.Go(func() {
			<-start
			answer := []string{"publish", "shelve"}[i%2]
			_, errs[i] = eng.Resume(t.Context(), def, flow.ResumeRequest{FlowID: paused.RunID, Feedback: answer})
			if errs[i] != nil {
				settle()
			}
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		assert.ErrorIs(t, err, store.ErrClaimed)
	}
	assert.Equal(t, 1, won, "resumes that continued the run")
	assert.Equal(t, int32(1), published.Load()+shelf.Load(), "branches run")
}

// TestResumeWhileRunningFails resumes a persisted run whose first process
// is still running it.
func TestResumeWhileRunningFails(t *testing.T) {
	st := store.NewMemory()
	b := newGate()
	eng := flow.NewEngine(flow.WithStore(st), flow.WithCode("t:b", b.handler("b-out")))
	def := mustParse(t, `
schema: crewai.flow/v1
name: Long
persist: {enabled: true}
methods:
  a: {start: true, do: {call: expression, expr: "'a-out'"}}
  b: {listen: a, do: {ref: "t:b"}}
`)
	done := make(chan error, 1)
	go func() {
		_, err := eng.Run(t.Context(), def, map[string]any{"id": "run-1"})
		done <- err
	}()
	<-b.entered
	_, err := eng.Resume(t.Context(), def, flow.ResumeRequest{FlowID: "run-1"})
	require.ErrorIs(t, err, store.ErrClaimed)
	_, err = eng.Run(t.Context(), def, map[string]any{"id": "run-1"})
	require.ErrorIs(t, err, store.ErrClaimed, "a second run with the same id")
	close(b.open)
	require.NoError(t, <-done)
	assert.Equal(t, int32(1), b.calls.Load())
}

// TestResumeTakesOverAnExpiredClaim resumes a run whose owner died holding
// its claim: refused while the lease lasts, taken over once it ran out.
func TestResumeTakesOverAnExpiredClaim(t *testing.T) {
	st := store.NewMemory()
	var ran atomic.Int32
	eng := flow.NewEngine(flow.WithStore(st), flow.WithCode("t:b", counter(&ran, "b-out")))
	def := mustParse(t, `
schema: crewai.flow/v1
name: Crashed
persist: {enabled: true}
methods:
  a: {start: true, do: {call: expression, expr: "'a-out'"}}
  b: {listen: a, do: {ref: "t:b"}}
`)
	require.NoError(t, st.Save(t.Context(), &store.Snapshot{FlowID: "run-1", Flow: "Crashed", Status: store.StatusRunning,
		Method: "a", State: map[string]any{"id": "run-1"}, Outputs: map[string]any{"a": "a-out"},
		Completed: []string{"a"}, Journal: []store.JournalEntry{{Method: "a", Output: "a-out"}}}))
	require.NoError(t, st.Claim(t.Context(), "run-1", "dead-process", time.Hour))

	_, err := eng.Resume(t.Context(), def, flow.ResumeRequest{FlowID: "run-1"})
	require.ErrorIs(t, err, store.ErrClaimed)
	assert.Equal(t, int32(0), ran.Load())

	// The dead process's lease runs out.
	require.NoError(t, st.Claim(t.Context(), "run-1", "dead-process", time.Millisecond))
	var res *flow.Result
	require.Eventually(t, func() bool {
		res, err = eng.Resume(t.Context(), def, flow.ResumeRequest{FlowID: "run-1"})
		return !errors.Is(err, store.ErrClaimed)
	}, 10*time.Second, time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, "b-out", res.Output)
	assert.Equal(t, int32(1), ran.Load())
}

// claimLog is a store that records the leases asked of it and can refuse
// them.
type claimLog struct {
	store.Store
	mu      sync.Mutex
	claims  []string // owners, in order
	release []string
	saves   int
	// refuse answers Claim calls from the n-th on (1-based) with err.
	refuseFrom int
	refuse     error
	afterLoss  int // saves after a refused claim
	renewed    chan struct{}
}

func (c *claimLog) Claim(ctx context.Context, id, owner string, ttl time.Duration) error {
	c.mu.Lock()
	c.claims = append(c.claims, owner)
	n := len(c.claims)
	refused := c.refuseFrom > 0 && n >= c.refuseFrom
	c.mu.Unlock()
	if n == 3 && c.renewed != nil {
		close(c.renewed)
	}
	if refused {
		return c.refuse
	}
	return c.Store.Claim(ctx, id, owner, ttl)
}

func (c *claimLog) Release(ctx context.Context, id, owner string) error {
	c.mu.Lock()
	c.release = append(c.release, owner)
	c.mu.Unlock()
	return c.Store.Release(ctx, id, owner)
}

func (c *claimLog) Save(ctx context.Context, s *store.Snapshot) error {
	c.mu.Lock()
	c.saves++
	if c.refuseFrom > 0 && len(c.claims) >= c.refuseFrom {
		c.afterLoss++
	}
	c.mu.Unlock()
	return c.Store.Save(ctx, s)
}

const persistedPair = `
schema: crewai.flow/v1
name: Pair
persist: {enabled: true}
methods:
  a: {start: true, do: {ref: "t:a"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a + '!'"}}
`

// TestRunRenewsAndReleasesItsClaim runs a persisted flow longer than its
// lease: the run renews the lease as one owner, and releases it at the
// end so that the next owner gets it at once.
func TestRunRenewsAndReleasesItsClaim(t *testing.T) {
	log := &claimLog{Store: store.NewMemory(), renewed: make(chan struct{})}
	eng := flow.NewEngine(flow.WithStore(log), flow.WithLease(30*time.Millisecond),
		flow.WithCode("t:a", func(ctx context.Context, _ flow.Input) (any, error) {
			select {
			case <-log.renewed:
				return "a-out", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				return nil, errors.New("the claim was never renewed")
			}
		}))
	res, err := eng.Run(t.Context(), mustParse(t, persistedPair), map[string]any{"id": "run-1"})
	require.NoError(t, err)
	assert.Equal(t, "a-out!", res.Output)

	log.mu.Lock()
	claims, released := append([]string(nil), log.claims...), append([]string(nil), log.release...)
	log.mu.Unlock()
	require.GreaterOrEqual(t, len(claims), 3, "the claim and its renewals")
	for _, owner := range claims {
		assert.Equal(t, claims[0], owner, "one owner renews")
	}
	assert.Equal(t, []string{claims[0]}, released)
	assert.NoError(t, log.Claim(t.Context(), "run-1", "next", time.Hour), "released at the end")
}

// TestRunReleasesItsClaimHoweverItEnds ends persisted runs by failing and
// by pausing: the claim is released either way.
func TestRunReleasesItsClaimHoweverItEnds(t *testing.T) {
	cases := []struct {
		name, doc string
	}{
		{"failed", `
schema: crewai.flow/v1
name: Fails
persist: {enabled: true}
state: {type: dict, default: {word: x}}
methods:
  a: {start: true, do: {call: expression, expr: "int(state.word)"}}
`},
		{"paused", `
schema: crewai.flow/v1
name: Pauses
persist: {enabled: true}
methods:
  a: {start: true, do: {call: expression, expr: "'x'"}, human_feedback: {message: "ok?"}}
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := store.NewMemory()
			_, _ = flow.NewEngine(flow.WithStore(st)).Run(t.Context(), mustParse(t, c.doc), map[string]any{"id": "run-1"})
			assert.NoError(t, st.Claim(t.Context(), "run-1", "next", time.Hour))
		})
	}
}

// TestRunStopsWhenItLosesItsClaim has the store refuse the run's renewals,
// as when another process took the run over, or fail them until the lease
// ran out: the run stops with store.ErrClaimed and saves nothing more.
func TestRunStopsWhenItLosesItsClaim(t *testing.T) {
	cases := []struct {
		name   string
		refuse error
	}{
		{"taken over", fmt.Errorf("held by another process: %w", store.ErrClaimed)},
		{"store unreachable", errors.New("connection refused")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := &claimLog{Store: store.NewMemory(), refuseFrom: 2, refuse: c.refuse}
			eng := flow.NewEngine(flow.WithStore(log), flow.WithLease(15*time.Millisecond),
				flow.WithCode("t:a", func(ctx context.Context, _ flow.Input) (any, error) {
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(10 * time.Second):
						return "a-out", nil
					}
				}))
			_, err := eng.Run(t.Context(), mustParse(t, persistedPair), map[string]any{"id": "run-1"})
			require.ErrorIs(t, err, store.ErrClaimed)
			log.mu.Lock()
			defer log.mu.Unlock()
			assert.Zero(t, log.afterLoss, "saves after the claim was lost")
			assert.Empty(t, log.release, "a lost claim is not released")
		})
	}
}

// TestRunChecksItsStoreFirst runs a persisted flow on a store that cannot
// be written: the run fails before its first method runs.
func TestRunChecksItsStoreFirst(t *testing.T) {
	broken := errors.New("database disk image is malformed")
	log := &claimLog{Store: store.NewMemory(), refuseFrom: 1, refuse: broken}
	var ran atomic.Int32
	eng := flow.NewEngine(flow.WithStore(log), flow.WithCode("t:a", counter(&ran, "a-out")))
	_, err := eng.Run(t.Context(), mustParse(t, persistedPair), nil)
	require.ErrorIs(t, err, broken)
	assert.Equal(t, int32(0), ran.Load(), "no method ran")
	assert.Zero(t, log.saves)
}
