package dbos_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
)

const opsFlow = `
schema: crewai.flow/v1
name: Ops
methods:
  a: {start: true, do: {call: expression, expr: "state.n + 1"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a * 2"}}
`

const gateFlow = `
schema: crewai.flow/v1
name: Gate
methods:
  ask:
    start: true
    do: {call: expression, expr: "'draft'"}
    human_feedback: {message: "OK?"}
`

func parseFlow(t *testing.T, src string) *flow.Definition {
	t.Helper()
	def, err := flow.Parse([]byte(src), "flow.yaml")
	require.NoError(t, err)
	return def
}

func TestAppVersion(t *testing.T) {
	ops, gate := parseFlow(t, opsFlow), parseFlow(t, gateFlow)
	v := troupedbos.AppVersion("troupe", ops, gate)
	assert.Regexp(t, `^troupe-[0-9a-f]{12}$`, v)
	assert.Equal(t, v, troupedbos.AppVersion("troupe", gate, ops), "flow order")
	assert.NotEqual(t, v, troupedbos.AppVersion("troupe", ops), "another set of flows")
	edited := parseFlow(t, `
schema: crewai.flow/v1
name: Ops
methods:
  a: {start: true, do: {call: expression, expr: "state.n + 3"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a * 2"}}
`)
	assert.NotEqual(t, v, troupedbos.AppVersion("troupe", edited, gate), "an edited flow")
	assert.Regexp(t, `^[0-9a-f]{12}$`, troupedbos.AppVersion("", ops))
}

func TestDefinitionChangedError(t *testing.T) {
	err := error(&troupedbos.DefinitionChangedError{RunID: "r", Flow: "Ops", Recorded: "a", Worker: "b"})
	assert.True(t, errors.Is(err, flow.ErrDefinitionChanged))
	assert.Contains(t, err.Error(), "dbos: run r of flow \"Ops\" was started with definition a")
}

// opsWorker launches a worker serving the Ops and Gate flows on a queue.
func opsWorker(t *testing.T, url, schema string) (*troupedbos.Worker, transact.Context) {
	t.Helper()
	defs := map[string]*flow.Definition{"Ops": parseFlow(t, opsFlow), "Gate": parseFlow(t, gateFlow)}
	dctx, err := transact.NewContext(context.Background(), transact.Config{AppName: "troupe", DatabaseURL: url,
		DatabaseSchema: schema, ApplicationVersion: "v1", ExecutorID: "ops-test", Logger: quietLogger()})
	require.NoError(t, err)
	w, err := troupedbos.NewWorker(dctx, troupedbos.Options{Flows: defs, Queue: "ops"})
	require.NoError(t, err)
	require.NoError(t, transact.Launch(dctx))
	t.Cleanup(func() { _ = transact.Shutdown(dctx, 5*time.Second) })
	return w, dctx
}

// TestRunsCancelAndDefinitionCheck lists runs by status and flow, cancels
// a run that waits for feedback, refuses unknown ids, and has a worker
// refuse a run started with another definition of its flow.
func TestRunsCancelAndDefinitionCheck(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			url, schema := newDB(t)
			w, dctx := opsWorker(t, url, schema)
			_, err := w.Start("Ops", map[string]any{"n": 20}, "ops-1")
			require.NoError(t, err)
			out, err := w.Result("ops-1")
			require.NoError(t, err)
			assert.EqualValues(t, 42, out)

			_, err = w.Start("Gate", nil, "gate-1")
			require.NoError(t, err)
			m, err := w.Pending("gate-1", 30*time.Second)
			require.NoError(t, err)
			require.Equal(t, "ask", m)

			runs, err := w.Runs(troupedbos.RunFilter{Status: "SUCCESS"})
			require.NoError(t, err)
			require.Len(t, runs, 1)
			assert.Equal(t, "ops-1", runs[0].ID)
			assert.Equal(t, "Ops", runs[0].Flow)
			assert.Equal(t, "ops-test", runs[0].Executor)
			assert.Equal(t, "v1", runs[0].Version)
			assert.False(t, runs[0].Created.IsZero())
			runs, err = w.Runs(troupedbos.RunFilter{Flow: "Gate"})
			require.NoError(t, err)
			require.Len(t, runs, 1)
			assert.Equal(t, "PENDING", runs[0].Status)
			runs, err = w.Runs(troupedbos.RunFilter{Limit: 1})
			require.NoError(t, err)
			assert.Len(t, runs, 1)

			require.NoError(t, w.Cancel("gate-1"))
			runs, err = w.Runs(troupedbos.RunFilter{Flow: "Gate"})
			require.NoError(t, err)
			require.Len(t, runs, 1)
			assert.Equal(t, "CANCELLED", runs[0].Status)
			assert.ErrorIs(t, w.Cancel("no-such-run"), troupedbos.ErrNoRun)

			// A client starts a run with an edited Ops: the worker refuses it.
			dc, err := transact.NewClient(context.Background(), transact.ClientConfig{DatabaseURL: url,
				DatabaseSchema: schema, AppName: "troupe", Logger: quietLogger()})
			require.NoError(t, err)
			defer transact.Shutdown(dc, 5*time.Second)
			c := troupedbos.NewClient(dc, transact.GetApplicationVersion(dctx))
			edited := parseFlow(t, `
schema: crewai.flow/v1
name: Ops
methods:
  a: {start: true, do: {call: expression, expr: "state.n + 3"}}
`)
			require.NoError(t, c.EnqueueDefinition("ops", edited, map[string]any{"n": 1}, "ops-2"))
			_, err = c.Result("ops-2")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "was started with definition "+edited.Hash())
			require.NoError(t, c.EnqueueDefinition("ops", parseFlow(t, opsFlow), map[string]any{"n": 1}, "ops-3"))
			out, err = c.Result("ops-3")
			require.NoError(t, err)
			assert.EqualValues(t, 4, out)
		})
	}
}

// quietLogger keeps DBOS's logs below warnings out of test output.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// TestProgress follows a run's status and events: a run that waits for
// feedback says so, and its events are numbered in order.
func TestProgress(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			url, schema := newDB(t)
			w, _ := opsWorker(t, url, schema)
			_, err := w.Start("Gate", nil, "gate-1")
			require.NoError(t, err)
			_, err = w.Pending("gate-1", 30*time.Second)
			require.NoError(t, err)
			st, err := w.Status("gate-1")
			require.NoError(t, err)
			assert.Equal(t, troupedbos.RunStatus{Phase: "waiting", Running: []string{"ask#1"}, Pending: "ask"}, st)
			require.NoError(t, w.Feedback("gate-1", "ask", "fine"))
			var seen []troupedbos.RunEvent
			require.NoError(t, w.Watch(context.Background(), "gate-1", func(e troupedbos.RunEvent) error {
				seen = append(seen, e)
				return nil
			}))
			_, err = w.Result("gate-1")
			require.NoError(t, err)
			require.NotEmpty(t, seen)
			for i, e := range seen {
				assert.Equal(t, i+1, e.Seq)
			}
			assert.Equal(t, troupedbos.RunEvent{Seq: 1, Kind: "started", Method: "ask", Invocation: 1}, seen[0])
			evs, err := w.Events("gate-1", 1)
			require.NoError(t, err)
			assert.Equal(t, seen[1:], evs)
			st, err = w.Status("gate-1")
			require.NoError(t, err)
			assert.Equal(t, "done", st.Phase)
			_, err = w.Status("nope")
			assert.ErrorIs(t, err, troupedbos.ErrNoRun)
		})
	}
}
