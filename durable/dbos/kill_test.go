package dbos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// A killCase kills a worker while the effect server holds one request
// open, and recovers the run in another worker process.
type killCase struct {
	name string
	flow string // the child's TROUPE_DBOS_FLOW
	// hold is the held request's effect key after "run-1/".
	hold string
	// before are keys that finish before the kill; oneOf, when set, keys
	// of which at least one does (an OR race's winner).
	before, oneOf []string
	// takeover recovers the run on another executor (Recover) instead of
	// restarting the same one.
	takeover bool
	// lease gives both workers executor leases; the second, with another
	// executor id, takes the run over when the dead worker's lease expires
	// (the sweeper), without anyone calling Recover.
	lease bool
}

// TestKilledWorkerRecovers SIGKILLs a worker subprocess while the effect
// server holds one request of its run open, then starts another worker:
// with the same executor id (DBOS recovers the run at launch) or with
// another one that takes the dead executor's run over (Recover). The
// output is an in-process run's; every effect the dead worker finished is
// requested exactly once, the held one twice (it was in flight), any other
// at most twice.
func TestKilledWorkerRecovers(t *testing.T) {
	cases := []killCase{
		{name: "third model call", flow: "Steps", hold: "work#1/llm#3",
			before: []string{"work#1/llm#1", "work#1/tool#1.1", "work#1/llm#2", "work#1/tool#2.1"}},
		{name: "fan-out into an AND join", flow: "Fan", hold: "a2#1/llm#1", before: []string{"a1#1/llm#1"}},
		{name: "OR race after the winner", flow: "Race", hold: "first#1/llm#1", oneOf: []string{"fast#1/llm#1", "slow#1/llm#1"}},
		{name: "middle tool of a round", flow: "Tools", hold: "gather#1/tool#1.2", before: []string{"gather#1/llm#1", "gather#1/tool#1.1"}},
		{name: "feedback answered after a restart", flow: "Review", hold: "draft#1/pending", before: []string{"draft#1/llm#1"}},
		{name: "another worker takes over", flow: "Steps", hold: "work#1/llm#3", takeover: true,
			before: []string{"work#1/llm#1", "work#1/tool#1.1", "work#1/llm#2", "work#1/tool#2.1"}},
		{name: "the sweeper hands a dead worker's run over", flow: "Steps", hold: "work#1/llm#3", lease: true,
			before: []string{"work#1/llm#1", "work#1/tool#1.1", "work#1/llm#2", "work#1/tool#2.1"}},
	}
	for dbName, newDB := range databases(t) {
		for _, kc := range cases {
			t.Run(dbName+"/"+kc.name, func(t *testing.T) { killAndRecover(t, newDB, kc) })
		}
	}
}

func killAndRecover(t *testing.T, newDB func(*testing.T) (string, string), kc killCase) {
	url, schema := newDB(t)
	srv := newEffectServer(t)
	held := srv.Hold("run-1/" + kc.hold)
	dir := t.TempDir()
	env := []string{"TROUPE_DBOS_DB=" + url, "TROUPE_DBOS_SCHEMA=" + schema, "TROUPE_DBOS_FLOW=" + kc.flow,
		"TROUPE_DBOS_MODEL_URL=" + srv.model.URL(), "TROUPE_DBOS_TOOL_URL=" + srv.tools.URL}
	if kc.lease {
		env = append(env, "TROUPE_DBOS_LEASE=1")
	}

	first := spawnChild(t, append(env, "TROUPE_DBOS_EXECUTOR=worker-1", "TROUPE_DBOS_START=1")...)
	select {
	case <-held:
	case <-first.exited:
		t.Fatalf("the first worker ended before the held request: %s", lastLines(first.out.String(), 5))
	case <-time.After(2 * time.Minute):
		t.Fatal("the held request never came")
	}
	dc := dbosClient(t, url, schema)
	prefixed := func(keys []string) []string {
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = "run-1/" + k
		}
		return out
	}
	before, oneOf := prefixed(kc.before), prefixed(kc.oneOf)
	// Steps finish after their answers went out: wait for the ones that
	// must have finished before killing.
	require.Eventually(t, func() bool {
		rec := recordedKeys(t, dc)
		return containsAll(rec, before) && (len(oneOf) == 0 || containsAny(rec, oneOf))
	}, time.Minute, 20*time.Millisecond, "steps before the held request not recorded")
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	<-first.exited
	ws, ok := first.cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL, "killed by SIGKILL: %v", first.cmd.ProcessState)
	finished := recordedKeys(t, dc)
	require.NotContains(t, finished, "run-1/"+kc.hold)

	outFile := filepath.Join(dir, "out.json")
	second := append(env, "TROUPE_DBOS_OUT="+outFile, "TROUPE_DBOS_EXECUTOR=worker-1")
	switch {
	case kc.takeover:
		second = append(env, "TROUPE_DBOS_OUT="+outFile, "TROUPE_DBOS_EXECUTOR=worker-2", "TROUPE_DBOS_RECOVER=worker-1")
	case kc.lease:
		second = append(env, "TROUPE_DBOS_OUT="+outFile, "TROUPE_DBOS_EXECUTOR=worker-2")
	}
	require.NoError(t, runChild(t, second...))
	out, err := os.ReadFile(outFile)
	require.NoError(t, err)
	var got any
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, inProcess(t, kc.flow), got, "the output of an in-process run")

	calls := srv.Calls()
	t.Logf("requests by effect key: %v", calls)
	assert.Zero(t, calls[""], "requests without an effect key")
	for k := range finished {
		if calls[k] > 0 { // model and tool calls, not the worker's own steps
			assert.Equal(t, 1, calls[k], "%s finished before the kill: requested exactly once", k)
		}
	}
	for _, k := range before {
		assert.Equal(t, 1, calls[k], "%s finished before the kill: requested exactly once", k)
	}
	held1 := "run-1/" + kc.hold
	if strings.Contains(kc.hold, "/llm#") || strings.Contains(kc.hold, "/tool#") {
		assert.Equal(t, 2, calls[held1], "%s was in flight at the kill: requested again once", held1)
	} else {
		assert.Equal(t, 1, calls[held1], "%s: the worker's note", held1)
	}
	for k, n := range calls {
		assert.LessOrEqual(t, n, 2, "%s requested at most twice", k)
	}
}

// inProcess runs the named flow in this process against a fresh effect
// server and returns its output as JSON data; Review's feedback approves.
func inProcess(t *testing.T, name string) any {
	t.Helper()
	srv := newEffectServer(t)
	opts, err := effectOptions(srv.model.URL(), srv.tools.URL)
	require.NoError(t, err)
	opts = append(opts, flow.WithFeedback(flow.FeedbackFunc(func(context.Context, *flow.FeedbackRequest) (string, error) {
		return "approved", nil
	})))
	def, err := flow.Parse([]byte(testFlows[name]), "flow.yaml")
	require.NoError(t, err)
	res, err := flow.NewEngine(opts...).Run(context.Background(), def, nil)
	require.NoError(t, err)
	b, err := json.Marshal(flow.Data(res.Output))
	require.NoError(t, err)
	var want any
	require.NoError(t, json.Unmarshal(b, &want))
	return want
}

// A spawned child is a worker process the test kills.
type spawned struct {
	cmd    *exec.Cmd
	out    *bytes.Buffer
	exited chan struct{} // closed once the process was waited for
}

// spawnChild starts a worker process (see child) and kills it, if it still
// runs, when the test ends.
func spawnChild(t *testing.T, env ...string) *spawned {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"TROUPE_DBOS_CHILD=1"}, env...)...)
	s := &spawned{cmd: cmd, out: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	require.NoError(t, cmd.Start())
	go func() { _ = cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-s.exited })
	return s
}

// dbosClient opens a DBOS client on a worker's database.
func dbosClient(t *testing.T, url, schema string) transact.Client {
	t.Helper()
	dc, err := transact.NewClient(context.Background(), transact.ClientConfig{DatabaseURL: url, AppName: "troupe-test", DatabaseSchema: schema})
	require.NoError(t, err)
	t.Cleanup(func() { transact.Shutdown(dc, 5*time.Second) })
	return dc
}

// recordedKeys returns the names of the steps recorded by every workflow
// in the database: the effect keys that finished.
func recordedKeys(t *testing.T, dc transact.Client) map[string]bool {
	t.Helper()
	wfs, err := transact.ListWorkflows(dc)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, wf := range wfs {
		steps, err := transact.GetWorkflowSteps(dc, wf.ID)
		require.NoError(t, err)
		for _, s := range steps {
			out[s.StepName] = true
		}
	}
	return out
}

func containsAll(set map[string]bool, keys []string) bool {
	for _, k := range keys {
		if !set[k] {
			return false
		}
	}
	return true
}

func containsAny(set map[string]bool, keys []string) bool {
	for _, k := range keys {
		if set[k] {
			return true
		}
	}
	return false
}
