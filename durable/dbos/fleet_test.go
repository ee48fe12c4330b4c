package dbos_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

// w1AgentFlow is the W1 chain (ten methods) with an agent step.
func w1AgentFlow() string {
	var b strings.Builder
	b.WriteString("schema: crewai.flow/v1\nname: W1Agent\nmethods:\n  m1: {start: true, do: {call: expression, expr: \"1\"}}\n")
	for i := 2; i <= 8; i++ {
		fmt.Fprintf(&b, "  m%d: {listen: m%d, do: {call: expression, expr: \"outputs.m%d + 1\"}}\n", i, i-1, i-1)
	}
	b.WriteString("  agent: {listen: m8, do: {call: agent, with: {role: Summarizer, goal: Sum, backstory: Brief., input: \"Say done.\"}}}\n")
	b.WriteString("  m10: {listen: agent, do: {call: expression, expr: \"string(outputs.m8) + ':' + outputs.agent.raw\"}}\n")
	return b.String()
}

func w1Options() []flow.Option {
	return []flow.Option{flow.WithLLM(fake.New(fake.Reply{Text: "done", Delay: 10 * time.Millisecond}))}
}

const fleetQueue = "troupe-runs"

// serve runs a worker on the fleet queue until the process is killed.
func serve() error {
	def, err := flow.Parse([]byte(w1AgentFlow()), "w1.yaml")
	if err != nil {
		return err
	}
	dctx, err := transact.NewContext(context.Background(), transact.Config{AppName: "troupe-test", DatabaseURL: os.Getenv("TROUPE_DBOS_DB"),
		DatabaseSchema: os.Getenv("TROUPE_DBOS_SCHEMA"), ApplicationVersion: "test-v1", ExecutorID: os.Getenv("TROUPE_DBOS_EXECUTOR")})
	if err != nil {
		return err
	}
	if _, err := troupedbos.NewWorker(dctx, troupedbos.Options{Flows: map[string]*flow.Definition{"W1Agent": def}, Engine: w1Options(),
		Queue: fleetQueue, WorkerConcurrency: 20}); err != nil {
		return err
	}
	if err := transact.Launch(dctx); err != nil {
		return err
	}
	select {}
}

// TestThreeWorkersShareRuns puts 300 runs of W1 with an agent step (a
// model taking 10 ms) on a queue three worker processes serve on
// PostgreSQL, kills one worker a third of the way, takes its runs over
// and checks that every run finishes with the right output. It logs the
// throughput and the recovery time.
func TestThreeWorkersShareRuns(t *testing.T) {
	dbs := databases(t)
	newDB, ok := dbs["postgres"]
	if !ok {
		t.Skip("TROUPE_POSTGRES_DSN is not set: the three-worker test needs PostgreSQL")
	}
	url, schema := newDB(t)
	env := []string{"TROUPE_DBOS_CHILD=1", "TROUPE_DBOS_SERVE=1", "TROUPE_DBOS_DB=" + url, "TROUPE_DBOS_SCHEMA=" + schema}
	logs := t.TempDir()
	workers := map[string]*exec.Cmd{}
	startWorker := func(id string) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), append(env, "TROUPE_DBOS_EXECUTOR="+id)...)
		f, err := os.Create(filepath.Join(logs, id+".log"))
		require.NoError(t, err)
		cmd.Stdout, cmd.Stderr = f, f
		require.NoError(t, cmd.Start())
		workers[id] = cmd
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); f.Close() })
	}
	// One worker creates the schema first: concurrent first launches race
	// on DBOS's migrations.
	startWorker("w1")
	// The workers create the schema as they launch; the client waits for it.
	var dc transact.Client
	var err error
	for range 600 {
		dc, err = transact.NewClient(context.Background(), transact.ClientConfig{DatabaseURL: url, AppName: "troupe-test", DatabaseSchema: schema})
		if err == nil || !strings.Contains(err.Error(), "schema version") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, err)
	defer transact.Shutdown(dc, 5*time.Second)
	startWorker("w2")
	startWorker("w3")
	client := troupedbos.NewClient(dc, "test-v1")

	const n = 300
	start := time.Now()
	for i := range n {
		require.NoError(t, client.Enqueue(fleetQueue, "W1Agent", map[string]any{}, fmt.Sprintf("fleet-%03d", i)))
	}
	for i := range n / 3 {
		out, err := client.Result(fmt.Sprintf("fleet-%03d", i))
		require.NoError(t, err)
		require.Equal(t, "8:done", out)
	}
	// Kill w1 while it runs some: wait until it holds pending runs.
	for range 3000 {
		busy, err := transact.ListWorkflows(dc, transact.WithFilterName(troupedbos.WorkflowName),
			transact.WithFilterStatus(transact.WorkflowStatusPending), transact.WithFilterExecutorIDs("w1"))
		require.NoError(t, err)
		if len(busy) > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	killed := time.Now()
	require.NoError(t, workers["w1"].Process.Kill())
	_ = workers["w1"].Wait()
	if open, err := transact.ListWorkflows(dc, transact.WithFilterName(troupedbos.WorkflowName)); err == nil {
		st := map[string]int{}
		for _, w := range open {
			st[string(w.Status)+"@"+w.ExecutorID]++
		}
		t.Logf("at the kill: %v", st)
	}
	taken, err := client.Recover("w1")
	require.NoError(t, err)
	require.NotEmpty(t, taken, "the killed worker had runs in progress")
	for _, id := range taken {
		out, err := client.Result(id)
		require.NoError(t, err, id)
		require.Equal(t, "8:done", out, id)
	}
	recovery := time.Since(killed)
	for i := range n {
		out, err := client.Result(fmt.Sprintf("fleet-%03d", i))
		require.NoError(t, err)
		assert.Equal(t, "8:done", out)
	}
	total := time.Since(start)
	all, err := transact.ListWorkflows(dc, transact.WithFilterName(troupedbos.WorkflowName))
	require.NoError(t, err)
	byExecutor := map[string]int{}
	for _, w := range all {
		byExecutor[w.ExecutorID]++
	}
	t.Logf("runs by executor at the end: %v", byExecutor)
	assert.Len(t, byExecutor, 3, "every worker ran runs")
	t.Logf("%d runs on 3 workers (one killed after %d): %.1f s, %.0f runs/s; %d runs of the killed worker taken over, all done %.2f s after the kill",
		n, n/3, total.Seconds(), float64(n)/total.Seconds(), len(taken), recovery.Seconds())
}
