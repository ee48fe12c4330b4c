package flow_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// orderGate makes the fast scheduler finish its methods in a given order:
// every method's action waits at the gate until its key comes up, and the
// next key comes up only once the previous method has finished (its
// method_finished event).
type orderGate struct {
	mu       sync.Mutex
	arrived  map[string]chan struct{}
	release  map[string]chan struct{}
	finished chan string
}

func newOrderGate() *orderGate {
	return &orderGate{arrived: map[string]chan struct{}{}, release: map[string]chan struct{}{}, finished: make(chan string, 64)}
}

func (g *orderGate) chans(key string) (chan struct{}, chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.arrived[key] == nil {
		g.arrived[key], g.release[key] = make(chan struct{}), make(chan struct{})
	}
	return g.arrived[key], g.release[key]
}

func (g *orderGate) intercept(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
	if e.Kind != flow.EffectMethod {
		return next(ctx)
	}
	arrived, release := g.chans(e.Key())
	close(arrived)
	select {
	case <-release:
		return next(ctx)
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func (g *orderGate) event(ev flow.Event) {
	if ev.Kind == flow.MethodFinished {
		g.finished <- ev.Method
	}
}

// runInOrder runs def on the fast scheduler with its methods finishing in
// the order of the driver's journal (all of whose entries succeeded).
func runInOrder(t *testing.T, newEngine func(...flow.Option) *flow.Engine, opts []flow.Option, def *flow.Definition, inputs map[string]any, journal []flow.Completion) (*flow.Result, error) {
	t.Helper()
	g := newOrderGate()
	eng := opts
	eng = append(eng, flow.WithInterceptor(g.intercept), flow.WithEvents(g.event))
	var res *flow.Result
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = newEngine(eng...).Run(context.Background(), def, inputs)
	}()
	// A guard against a deadlock, not a timing assertion: a method that
	// never arrives means the schedulers disagree.
	const guard = 20 * time.Second
	for _, c := range journal {
		arrived, release := g.chans(c.Key)
		select {
		case <-arrived:
		case <-time.After(guard):
			t.Fatalf("the fast scheduler never started %s", c.Key)
		}
		close(release)
		select {
		case <-g.finished:
		case <-time.After(guard):
			t.Fatalf("the fast scheduler never finished %s", c.Key)
		}
	}
	// A racer that joined its race after the winner finished is not
	// cancelled: it runs and then loses. Let such late arrivals through.
	for {
		select {
		case <-done:
			return res, err
		case <-time.After(guard):
			t.Fatal("the fast run did not end")
		case <-time.After(time.Millisecond):
			g.releaseArrived()
		}
	}
}

// releaseArrived lets every method waiting at the gate through.
func (g *orderGate) releaseArrived() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, a := range g.arrived {
		select {
		case <-a:
			select {
			case <-g.release[k]:
			default:
				close(g.release[k])
			}
		default:
		}
	}
}

var errJournalFailed = errors.New("journal has a failure")

func journalOK(journal []flow.Completion) error {
	for _, c := range journal {
		if c.Err != "" {
			return errJournalFailed
		}
	}
	return nil
}

// requireSameRun checks that the fast scheduler, made to finish methods
// in the driver's order, gives the driver's output, state and trace.
func requireSameRun(t *testing.T, newEngine func(...flow.Option) *flow.Engine, opts []flow.Option, def *flow.Definition, inputs map[string]any, d *flow.Driver, got *flow.Result) {
	t.Helper()
	if journalOK(d.Journal()) != nil || def.Config.SuppressFlowEvents {
		return // the gate needs every method to succeed and report its end
	}
	want, err := runInOrder(t, newEngine, opts, def, inputs, d.Journal())
	require.NoError(t, err)
	require.Equal(t, want.Trace, got.Trace, "trace")
	require.Equal(t, want.Output, got.Output, "output")
	require.Equal(t, want.State, got.State, "state")
	require.Equal(t, flow.Data(want.Outputs), flow.Data(got.Outputs), "outputs")
}
