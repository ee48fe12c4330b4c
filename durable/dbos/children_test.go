package dbos_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

// gate is shared by the models of a test's workers: every request waits
// until want requests have arrived (so a run finishes only if they were
// under way at once), except those of roles that are held until release
// is closed.
type gate struct {
	mu      sync.Mutex
	want    int
	arrived int
	all     chan struct{}
	held    map[string]bool
	release chan struct{}
	// by counts the requests of each worker.
	by map[string]int
}

func newGate(want int, held ...string) *gate {
	g := &gate{want: want, all: make(chan struct{}), release: make(chan struct{}), held: map[string]bool{}, by: map[string]int{}}
	for _, r := range held {
		g.held[r] = true
	}
	return g
}

type gatedModel struct {
	*fake.Model
	g      *gate
	worker string
}

func (m gatedModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	text := req.Messages[len(req.Messages)-1].Text()
	g := m.g
	g.mu.Lock()
	g.by[m.worker]++
	if g.arrived++; g.arrived == g.want {
		close(g.all)
	}
	g.mu.Unlock()
	wait := g.all
	for r := range g.held {
		if strings.Contains(text, "Answer as "+r) {
			wait = g.release
		}
	}
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return m.Model.Generate(ctx, req)
}

// launch starts a worker with executor id exec on the database, with the
// fan and race flows and a model behind g.
func launch(t *testing.T, url, schema, exec string, g *gate, o troupedbos.Options) (transact.Context, *troupedbos.Worker) {
	t.Helper()
	fan, err := flow.Parse([]byte(fanFlow), "fan.yaml")
	require.NoError(t, err)
	race, err := flow.Parse([]byte(raceFlow), "race.yaml")
	require.NoError(t, err)
	dctx, err := transact.NewContext(context.Background(), transact.Config{AppName: "troupe-test", DatabaseURL: url,
		DatabaseSchema: schema, ApplicationVersion: "test-v1", ExecutorID: exec})
	require.NoError(t, err)
	model := fake.New(fake.Match("Answer as R1", fake.Text("one")), fake.Match("Answer as R2", fake.Text("two")), fake.Match("Answer as R3", fake.Text("three")))
	if o.Flows == nil {
		o.Flows = map[string]*flow.Definition{}
	}
	o.Flows["Fan"], o.Flows["Race"] = fan, race
	o.Engine = append(o.Engine, flow.WithLLM(gatedModel{Model: model, g: g, worker: exec}))
	w, err := troupedbos.NewWorker(dctx, o)
	require.NoError(t, err)
	require.NoError(t, transact.Launch(dctx))
	t.Cleanup(func() { transact.Shutdown(dctx, 5*time.Second) })
	return dctx, w
}

// TestFanOutAgentsRunAtOnce runs three agents that fan out into an AND
// join: each model call waits until all three arrived, so the run ends
// only if the three method invocations ran at once.
func TestFanOutAgentsRunAtOnce(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			url, schema := newDB(t)
			_, w := launch(t, url, schema, "worker-1", newGate(3), troupedbos.Options{})
			id, err := w.Start("Fan", nil, "fan-1")
			require.NoError(t, err)
			out, err := w.Result(id)
			require.NoError(t, err)
			assert.Equal(t, "onetwothree", out)
		})
	}
}

// TestMethodsOnAQueueSpreadOverWorkers puts a run's methods on a queue
// that two workers serve, each taking at most two at once: the three
// agents, which wait for one another, finish only if both workers took
// some.
func TestMethodsOnAQueueSpreadOverWorkers(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			url, schema := newDB(t)
			g := newGate(3)
			o := troupedbos.Options{MethodQueue: "troupe-methods", MethodConcurrency: 2}
			_, w := launch(t, url, schema, "worker-1", g, o)
			launch(t, url, schema, "worker-2", g, o)
			id, err := w.Start("Fan", nil, "fan-q")
			require.NoError(t, err)
			out, err := w.Result(id)
			require.NoError(t, err)
			assert.Equal(t, "onetwothree", out)
			g.mu.Lock()
			defer g.mu.Unlock()
			assert.Positive(t, g.by["worker-1"])
			assert.Positive(t, g.by["worker-2"])
		})
	}
}

// TestOrRaceCancelsTheLoser races R1 against R2, whose model call is held
// until the run ended: the run finishes with the winner, and the loser's
// child workflow is cancelled.
func TestOrRaceCancelsTheLoser(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			url, schema := newDB(t)
			g := newGate(1, "R2")
			dctx, w := launch(t, url, schema, "worker-1", g, troupedbos.Options{})
			defer close(g.release)
			id, err := w.Start("Race", nil, "race-1")
			require.NoError(t, err)
			out, err := w.Result(id)
			require.NoError(t, err)
			assert.Equal(t, "three", out)
			h, err := transact.RetrieveWorkflow[string](dctx, "race-1/slow#1")
			require.NoError(t, err)
			st, err := h.GetStatus()
			require.NoError(t, err)
			assert.Equal(t, transact.WorkflowStatusCancelled, st.Status)
			h, err = transact.RetrieveWorkflow[string](dctx, "race-1/fast#1")
			require.NoError(t, err)
			st, err = h.GetStatus()
			require.NoError(t, err)
			assert.Equal(t, transact.WorkflowStatusSuccess, st.Status)
		})
	}
}

// stateFlow has code handlers change the state in a child workflow: the
// changes come back as patches that later methods read.
const stateFlow = `
schema: crewai.flow/v1
name: State
state: {type: dict, default: {n: 1}}
methods:
  bump: {start: true, do: {call: code, ref: bump}}
  drop: {listen: bump, do: {call: code, ref: drop}}
  report: {listen: drop, do: {call: expression, expr: "string(state.n) + ':' + string('gone' in state) + ':' + string(outputs.bump)"}}
`

// TestCodeHandlersPatchTheState runs code handlers as child workflows:
// what they set and delete reaches the run's state, each is called once,
// and the run's output is an in-process run's.
func TestCodeHandlersPatchTheState(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	count := func(m string) {
		mu.Lock()
		calls[m]++
		mu.Unlock()
	}
	opts := []flow.Option{
		flow.WithCode("bump", func(_ context.Context, in flow.Input) (any, error) {
			count("bump")
			in.State.Set("n", in.State.Value("n").(int64)+41)
			in.State.Set("gone", true)
			return int64(7), nil
		}),
		flow.WithCode("drop", func(_ context.Context, in flow.Input) (any, error) {
			count("drop")
			in.State.Delete("gone")
			return nil, nil
		}),
	}
	def, err := flow.Parse([]byte(stateFlow), "state.yaml")
	require.NoError(t, err)
	want, err := flow.NewEngine(opts...).Run(context.Background(), def, nil)
	require.NoError(t, err)
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			mu.Lock()
			clear(calls)
			mu.Unlock()
			url, schema := newDB(t)
			_, w := launch(t, url, schema, "worker-1", newGate(1), troupedbos.Options{Flows: map[string]*flow.Definition{"State": def}, Engine: opts})
			id, err := w.Start("State", nil, "state-1")
			require.NoError(t, err)
			out, err := w.Result(id)
			require.NoError(t, err)
			assert.Equal(t, "42:false:7", want.Output)
			assert.Equal(t, want.Output, out)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, map[string]int{"bump": 1, "drop": 1}, calls)
		})
	}
}
