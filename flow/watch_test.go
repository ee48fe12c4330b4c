package flow_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/store"
)

// TestRunReturnsWhenAHandlerIgnoresItsContext runs a handler that blocks
// without looking at its context: Run must return once the context ends,
// naming the method, instead of waiting for the handler.
func TestRunReturnsWhenAHandlerIgnoresItsContext(t *testing.T) {
	release := make(chan struct{})
	// Without the fix Run waits for the handler; release it eventually so
	// that the test fails instead of hanging.
	stop := time.AfterFunc(5*time.Second, func() { close(release) })
	t.Cleanup(func() {
		if stop.Stop() {
			close(release)
		}
	})
	stubborn := func(context.Context, flow.Input) (any, error) {
		<-release
		return "late", nil
	}
	quick := func(context.Context, flow.Input) (any, error) { return "quick", nil }
	def, err := flow.New("Stubborn").
		Method("fast", flow.Go(quick)).Start().
		Method("stuck", flow.Go(stubborn)).ListenTo("fast").
		Method("after", flow.Go(quick)).ListenTo("stuck").
		Build()
	require.NoError(t, err)

	var mu sync.Mutex
	var kinds []flow.EventKind // of the stubborn flow's run
	eng := flow.NewEngine(flow.WithEvents(func(ev flow.Event) {
		mu.Lock()
		if ev.Flow == "Stubborn" {
			kinds = append(kinds, ev.Kind)
		}
		mu.Unlock()
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = eng.Run(ctx, def, nil)

	var me *flow.MethodError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "stuck", me.Method)
	var sr *flow.StillRunningError
	require.ErrorAs(t, err, &sr)
	assert.Equal(t, []string{"stuck"}, sr.Methods)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), `method "stuck"`)

	// The handler returns later; nothing more is reported for the run.
	mu.Lock()
	seen := len(kinds)
	mu.Unlock()
	if stop.Stop() {
		close(release)
	}
	// A second run on the same engine works and is not disturbed; by its
	// end the released handler has long returned.
	res, err := eng.Run(context.Background(), mustParse(t, "schema: crewai.flow/v1\nname: Other\nmethods:\n  a: {start: true, do: {call: expression, expr: \"1\"}}\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, int64(1), res.Output)
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, kinds[seen:], "no event of the abandoned run after Run returned")
}

// TestCancelledRunOfWellBehavedMethodsKeepsItsError checks that a method
// that honours its context fails as before: no StillRunningError.
func TestCancelledRunOfWellBehavedMethodsKeepsItsError(t *testing.T) {
	waits := func(ctx context.Context, _ flow.Input) (any, error) {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	def, err := flow.New("Polite").Method("wait", flow.Go(waits)).Start().Build()
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	_, err = flow.NewEngine().Run(ctx, def, nil)
	var me *flow.MethodError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "wait", me.Method)
	assert.ErrorIs(t, err, context.Canceled)
	var sr *flow.StillRunningError
	assert.False(t, errors.As(err, &sr), "a method that returned is not still running: %v", err)
}

// slowSaves is a store whose saves of a final status take longer than
// CancelGrace.
type slowSaves struct {
	store.Store
}

func (s slowSaves) Save(ctx context.Context, snap *store.Snapshot) error {
	if snap.Status != store.StatusRunning {
		time.Sleep(3 * flow.CancelGrace)
	}
	return s.Store.Save(ctx, snap)
}

// TestCancelledRunSavesItsStatusBeforeReturning checks that Run, when its
// context ends, waits for the run's own closing work: a process that exits
// right after Run returns must find the run in its store.
func TestCancelledRunSavesItsStatusBeforeReturning(t *testing.T) {
	waits := func(ctx context.Context, _ flow.Input) (any, error) {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	def, err := flow.New("Saved").Persist(&flow.Persist{Enabled: true}).Method("wait", flow.Go(waits)).Start().Build()
	require.NoError(t, err)
	st := slowSaves{store.NewMemory()}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	_, err = flow.NewEngine(flow.WithStore(st)).Run(ctx, def, map[string]any{"id": "run-1"})
	require.ErrorIs(t, err, context.Canceled)
	snap, err := st.Load(context.Background(), "run-1")
	require.NoError(t, err, "the run's final status was saved before Run returned")
	assert.Equal(t, store.StatusFailed, snap.Status)
}
