package dbos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

const stepsFlow = `
schema: crewai.flow/v1
name: Steps
methods:
  work:
    start: true
    do:
      call: agent
      with: {role: Worker, goal: Work, backstory: Steady., tools: [step], input: "Do the three steps."}
  report:
    listen: work
    do: {call: expression, expr: "'report: ' + outputs.work.raw"}
`

const toolsFlow = `
schema: crewai.flow/v1
name: Tools
methods:
  gather:
    start: true
    do:
      call: agent
      with: {role: Gatherer, goal: Gather, backstory: Quick., tools: [fetch], input: "Fetch 1, 2 and 3."}
`

// toolsOptions gives an agent whose model asks for three fetches in one
// response; the fetch tool logs its calls and kills its process during
// the call killAt (0: never).
func toolsOptions(log string, killAt int) []flow.Option {
	fetch := action.MustNewTool("fetch", "Fetch one item.", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		appendLine(log, fmt.Sprintf("tool#%d", in.N))
		if in.N == killAt {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		return fmt.Sprintf("fetched %d", in.N), nil
	})
	model := fake.New(
		fake.Match("fetched 3", fake.Text("Fetched all.")),
		fake.ToolCalls(fake.Call("fetch", map[string]any{"n": 1}), fake.Call("fetch", map[string]any{"n": 2}), fake.Call("fetch", map[string]any{"n": 3})),
	)
	return []flow.Option{flow.WithLLM(model), flow.WithTools(fetch)}
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		panic(err)
	}
	fmt.Fprintln(f, line)
	f.Close()
}

const reviewFlow = `
schema: crewai.flow/v1
name: Review
methods:
  draft:
    start: true
    human_feedback: {message: "Publish?", emit: [approved, rejected], default_outcome: rejected}
    do: {call: expression, expr: "'draft'"}
  publish: {listen: approved, do: {call: expression, expr: "'published'"}}
  discard: {listen: rejected, do: {call: expression, expr: "'discarded'"}}
`

const fanFlow = `
schema: crewai.flow/v1
name: Fan
methods:
  begin: {start: true, do: {call: expression, expr: "'go'"}}
  a1: {listen: begin, do: {call: agent, with: {role: R1, goal: Answer, backstory: One., input: "Answer as R1."}}}
  a2: {listen: begin, do: {call: agent, with: {role: R2, goal: Answer, backstory: Two., input: "Answer as R2."}}}
  a3: {listen: begin, do: {call: agent, with: {role: R3, goal: Answer, backstory: Three., input: "Answer as R3."}}}
  join: {listen: {and: [a1, a2, a3]}, do: {call: expression, expr: "outputs.a1.raw + outputs.a2.raw + outputs.a3.raw"}}
`

// raceFlow races R1 and R2 for an or-listener, itself an agent (R3).
const raceFlow = `
schema: crewai.flow/v1
name: Race
methods:
  begin: {start: true, do: {call: expression, expr: "'go'"}}
  fast: {listen: begin, do: {call: agent, with: {role: R1, goal: Answer, backstory: One., input: "Answer as R1."}}}
  slow: {listen: begin, do: {call: agent, with: {role: R2, goal: Answer, backstory: Two., input: "Answer as R2."}}}
  first: {listen: {or: [fast, slow]}, do: {call: agent, with: {role: R3, goal: Answer, backstory: Three., input: "Answer as R3."}}}
  report: {listen: first, do: {call: expression, expr: "outputs.first.raw"}}
`

// roleModel logs the role each request is for and kills its process on
// the request of killRole ("" never).
type roleModel struct {
	*fake.Model
	log, killRole string
}

func (m roleModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	role := ""
	for _, r := range []string{"R1", "R2", "R3"} {
		if strings.Contains(req.Messages[len(req.Messages)-1].Text(), "Answer as "+r) {
			role = r
		}
	}
	appendLine(m.log, role)
	if role == m.killRole {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return m.Model.Generate(ctx, req)
}

func fanOptions(log, killRole string) []flow.Option {
	model := fake.New(fake.Match("Answer as R1", fake.Text("one")), fake.Match("Answer as R2", fake.Text("two")), fake.Match("Answer as R3", fake.Text("three")))
	return []flow.Option{flow.WithLLM(roleModel{Model: model, log: log, killRole: killRole})}
}

// loggedModel appends the turn of every request it gets to a file, and
// kills its process during the turn killAt (0: never).
type loggedModel struct {
	*fake.Model
	log    string
	killAt int
}

func (m loggedModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	turn := (len(req.Messages)-2)/2 + 1
	f, err := os.OpenFile(m.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f, "llm#%d\n", turn)
	f.Close()
	if turn == m.killAt {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return m.Model.Generate(ctx, req)
}

func stepsOptions(log string, killAt int) []flow.Option {
	step := action.MustNewTool("step", "Do one step.", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return fmt.Sprintf("step %d done", in.N), nil
	})
	model := fake.New(
		fake.Match("step 3 done", fake.Text("All three steps done.")),
		fake.Match("step 2 done", fake.ToolCalls(fake.Call("step", map[string]any{"n": 3}))),
		fake.Match("step 1 done", fake.ToolCalls(fake.Call("step", map[string]any{"n": 2}))),
		fake.ToolCalls(fake.Call("step", map[string]any{"n": 1})),
	)
	return []flow.Option{flow.WithLLM(loggedModel{Model: model, log: log, killAt: killAt}), flow.WithTools(step)}
}

// TestMain turns the test binary into a worker process when asked.
func TestMain(m *testing.M) {
	if os.Getenv("TROUPE_DBOS_CHILD") == "1" {
		run := child
		if os.Getenv("TROUPE_DBOS_SERVE") == "1" {
			run = serve
		}
		if err := run(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child() error {
	ctx := context.Background()
	killAt := 0
	fmt.Sscan(os.Getenv("TROUPE_DBOS_KILL_AT"), &killAt)
	src, opts, name := stepsFlow, stepsOptions(os.Getenv("TROUPE_DBOS_LOG"), killAt), "Steps"
	switch os.Getenv("TROUPE_DBOS_FLOW") {
	case "Tools":
		src, opts, name = toolsFlow, toolsOptions(os.Getenv("TROUPE_DBOS_LOG"), killAt), "Tools"
	case "Review":
		src, opts, name = reviewFlow, nil, "Review"
	case "Race":
		src, opts, name = raceFlow, fanOptions(os.Getenv("TROUPE_DBOS_LOG"), os.Getenv("TROUPE_DBOS_KILL_ROLE")), "Race"
	case "Fan":
		src, opts, name = fanFlow, fanOptions(os.Getenv("TROUPE_DBOS_LOG"), os.Getenv("TROUPE_DBOS_KILL_ROLE")), "Fan"
	}
	def, err := flow.Parse([]byte(src), "flow.yaml")
	if err != nil {
		return err
	}
	dctx, err := transact.NewContext(ctx, transact.Config{AppName: "troupe-test", DatabaseURL: os.Getenv("TROUPE_DBOS_DB"),
		DatabaseSchema: os.Getenv("TROUPE_DBOS_SCHEMA"), ApplicationVersion: "test-v1", ExecutorID: os.Getenv("TROUPE_DBOS_EXECUTOR")})
	if err != nil {
		return err
	}
	w, err := troupedbos.NewWorker(dctx, troupedbos.Options{Flows: map[string]*flow.Definition{name: def}, Engine: opts})
	if err != nil {
		return err
	}
	if err := transact.Launch(dctx); err != nil {
		return err
	}
	defer transact.Shutdown(dctx, 5*time.Second)
	if os.Getenv("TROUPE_DBOS_LEASE") == "1" { // h-ops: TestSweeperTakesOverAKilledWorker
		l, err := troupedbos.StartLease(ctx, dctx, troupedbos.LeaseOptions{DatabaseURL: os.Getenv("TROUPE_DBOS_DB"),
			Schema: os.Getenv("TROUPE_DBOS_SCHEMA"), TTL: time.Second, SweepInterval: 100 * time.Millisecond})
		if err != nil {
			return err
		}
		defer l.Stop()
	}
	if dead := os.Getenv("TROUPE_DBOS_RECOVER"); dead != "" {
		ids, err := w.Recover(dead)
		if err != nil {
			return err
		}
		if len(ids) != 1 || ids[0] != "run-1" {
			return fmt.Errorf("recovered %v, want [run-1]", ids)
		}
	}
	if os.Getenv("TROUPE_DBOS_START") == "1" {
		if _, err := w.Start(name, map[string]any{}, "run-1"); err != nil {
			return err
		}
	}
	if name == "Review" {
		pending, err := w.Pending("run-1", time.Minute)
		if err != nil {
			return err
		}
		if pending != "draft" {
			return fmt.Errorf("pending %q, want draft", pending)
		}
		if os.Getenv("TROUPE_DBOS_START") == "1" {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL) // die while the run waits
			select {}
		}
		if err := w.Feedback("run-1", "draft", "approved"); err != nil {
			return err
		}
	}
	out, err := w.Result("run-1")
	if err != nil {
		return err
	}
	b, err := json.Marshal(flow.Data(out))
	if err != nil {
		return err
	}
	return os.WriteFile(os.Getenv("TROUPE_DBOS_OUT"), b, 0o600)
}

func runChild(t *testing.T, env ...string) error {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"TROUPE_DBOS_CHILD=1"}, env...)...)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	err := cmd.Run()
	if err != nil {
		t.Logf("child output: %s", lastLines(errb.String(), 5))
	}
	return err
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// databases returns the system databases to test on: SQLite in a
// temporary folder, and PostgreSQL at TROUPE_POSTGRES_DSN (each test in a
// schema of its own), which is required when CI=true.
func databases(t *testing.T) map[string]func(t *testing.T) (url, schema string) {
	out := map[string]func(t *testing.T) (string, string){
		"sqlite": func(t *testing.T) (string, string) {
			return "sqlite://" + filepath.Join(t.TempDir(), "dbos.sqlite"), ""
		},
	}
	dsn := os.Getenv("TROUPE_POSTGRES_DSN")
	if dsn == "" && os.Getenv("CI") == "true" {
		t.Fatal("TROUPE_POSTGRES_DSN is not set; CI must test the adapter on PostgreSQL")
	}
	if dsn != "" {
		out["postgres"] = func(t *testing.T) (string, string) {
			schema := fmt.Sprintf("troupe_dbos_%d", time.Now().UnixNano())
			t.Cleanup(func() { dropSchema(t, dsn, schema) })
			return dsn, schema
		}
	} else {
		t.Log("TROUPE_POSTGRES_DSN is not set: testing on SQLite only")
	}
	return out
}

// dropSchema removes a test's DBOS schema from the shared database.
func dropSchema(t *testing.T, dsn, schema string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Logf("drop schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		t.Logf("drop schema %s: %v", schema, err)
	}
}

// TestKilledDuringThirdModelCall starts a run in a worker that SIGKILLs
// itself during the agent's third model call, then starts another worker:
// one with the same executor id (DBOS recovers the run at launch) or one
// with another id that takes the dead executor's runs over (Recover). The
// two finished model calls are not made again, the one in flight is made
// again, and the output is an in-process run's.
func TestKilledDuringThirdModelCall(t *testing.T) {
	for dbName, newDB := range databases(t) {
		for _, takeover := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/takeover=%v", dbName, takeover), func(t *testing.T) {
				url, schema := newDB(t)
				dir := t.TempDir()
				log := filepath.Join(dir, "calls.log")
				env := []string{"TROUPE_DBOS_DB=" + url, "TROUPE_DBOS_SCHEMA=" + schema, "TROUPE_DBOS_LOG=" + log}

				err := runChild(t, append(env, "TROUPE_DBOS_EXECUTOR=worker-1", "TROUPE_DBOS_KILL_AT=3", "TROUPE_DBOS_START=1")...)
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee, "the first worker must die")
				ws, ok := ee.Sys().(syscall.WaitStatus)
				require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL, "killed by SIGKILL: %v", err)

				outFile := filepath.Join(dir, "out.json")
				second := append(env, "TROUPE_DBOS_OUT="+outFile, "TROUPE_DBOS_EXECUTOR=worker-1")
				if takeover {
					second = append(env, "TROUPE_DBOS_OUT="+outFile, "TROUPE_DBOS_EXECUTOR=worker-2", "TROUPE_DBOS_RECOVER=worker-1")
				}
				require.NoError(t, runChild(t, second...))
				out, err := os.ReadFile(outFile)
				require.NoError(t, err)

				def, err := flow.Parse([]byte(stepsFlow), "steps.yaml")
				require.NoError(t, err)
				want, err := flow.NewEngine(stepsOptions(filepath.Join(dir, "inprocess.log"), 0)...).Run(context.Background(), def, nil)
				require.NoError(t, err)
				var got any
				require.NoError(t, json.Unmarshal(out, &got))
				assert.Equal(t, want.Output, got)

				calls, err := os.ReadFile(log)
				require.NoError(t, err)
				counts := map[string]int{}
				for _, l := range strings.Fields(string(calls)) {
					counts[l]++
				}
				assert.Equal(t, 1, counts["llm#1"], "finished before the kill: exactly once")
				assert.Equal(t, 1, counts["llm#2"], "finished before the kill: exactly once")
				assert.Equal(t, 2, counts["llm#3"], "in flight at the kill: made again once")
				assert.Equal(t, 1, counts["llm#4"])
			})
		}
	}
}

// TestKilledDuringAParallelToolRound kills the worker while the second of
// three tool calls of one model response runs: after recovery the first is
// not called again, the second is called again, the third once.
func TestKilledDuringAParallelToolRound(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			url, schema := newDB(t)
			dir := t.TempDir()
			log := filepath.Join(dir, "calls.log")
			env := []string{"TROUPE_DBOS_DB=" + url, "TROUPE_DBOS_SCHEMA=" + schema, "TROUPE_DBOS_LOG=" + log,
				"TROUPE_DBOS_FLOW=Tools", "TROUPE_DBOS_EXECUTOR=worker-1"}
			err := runChild(t, append(env, "TROUPE_DBOS_KILL_AT=2", "TROUPE_DBOS_START=1")...)
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the first worker must die")
			outFile := filepath.Join(dir, "out.json")
			require.NoError(t, runChild(t, append(env, "TROUPE_DBOS_OUT="+outFile)...))
			out, err := os.ReadFile(outFile)
			require.NoError(t, err)
			assert.JSONEq(t, `{"agent_role":"Gatherer","messages":null}`, filterAgentOutput(t, out))

			calls, err := os.ReadFile(log)
			require.NoError(t, err)
			assert.Equal(t, []string{"tool#1", "tool#2", "tool#2", "tool#3"}, strings.Fields(string(calls)))
		})
	}
}

// filterAgentOutput checks the recovered run's answer and returns the
// fields of the output that do not depend on the run.
func filterAgentOutput(t *testing.T, out []byte) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(out, &m))
	require.Equal(t, "Fetched all.", m["raw"])
	b, err := json.Marshal(map[string]any{"agent_role": m["agent_role"], "messages": nil})
	require.NoError(t, err)
	return string(b)
}

// TestFeedbackAnsweredAfterARestart kills the worker while its run waits
// for human feedback; a restarted worker recovers the run, which waits
// again, and the answer sent to it routes the run.
func TestFeedbackAnsweredAfterARestart(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			url, schema := newDB(t)
			dir := t.TempDir()
			env := []string{"TROUPE_DBOS_DB=" + url, "TROUPE_DBOS_SCHEMA=" + schema, "TROUPE_DBOS_FLOW=Review", "TROUPE_DBOS_EXECUTOR=worker-1"}
			err := runChild(t, append(env, "TROUPE_DBOS_START=1")...)
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the first worker must die")
			outFile := filepath.Join(dir, "out.json")
			require.NoError(t, runChild(t, append(env, "TROUPE_DBOS_OUT="+outFile)...))
			out, err := os.ReadFile(outFile)
			require.NoError(t, err)
			assert.JSONEq(t, `"published"`, string(out))
		})
	}
}

// killAndRecover runs flowName in a worker that kills itself as kill
// (an environment setting) says, then in a restarted worker, and returns
// the run's output and how often the log says each call was made.
func killAndRecover(t *testing.T, newDB func(*testing.T) (string, string), flowName, kill string) ([]byte, map[string]int) {
	t.Helper()
	url, schema := newDB(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	env := []string{"TROUPE_DBOS_DB=" + url, "TROUPE_DBOS_SCHEMA=" + schema, "TROUPE_DBOS_LOG=" + log,
		"TROUPE_DBOS_FLOW=" + flowName, "TROUPE_DBOS_EXECUTOR=worker-1"}
	err := runChild(t, append(slices.Clip(env), kill, "TROUPE_DBOS_START=1")...)
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "the first worker must die")
	outFile := filepath.Join(dir, "out.json")
	require.NoError(t, runChild(t, append(slices.Clip(env), "TROUPE_DBOS_OUT="+outFile)...))
	out, err := os.ReadFile(outFile)
	require.NoError(t, err)
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	counts := map[string]int{}
	for _, l := range strings.Fields(string(calls)) {
		counts[l]++
	}
	return out, counts
}

// TestKilledDuringAFanOutIntoAnAndJoin kills the worker during the second
// of three agents that fan out into an AND join: the first agent's call is
// not made again, the second's is.
func TestKilledDuringAFanOutIntoAnAndJoin(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			out, counts := killAndRecover(t, newDB, "Fan", "TROUPE_DBOS_KILL_ROLE=R2")
			assert.JSONEq(t, `"onetwothree"`, string(out))
			// h-child: the three agents run at once, so R1 and R3 may be
			// in flight at the kill (then asked twice); R2 always is.
			assert.Equal(t, 2, counts["R2"])
			assert.LessOrEqual(t, counts["R1"], 2)
			assert.LessOrEqual(t, counts["R3"], 2)
			assert.Len(t, counts, 3)
		})
	}
}

// TestKilledAfterAnOrRaceWasWon kills the worker during the call of the
// or-listener, after the race's winner finished: the winner is not asked
// again, the loser never, the listener's call once more.
func TestKilledAfterAnOrRaceWasWon(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			out, counts := killAndRecover(t, newDB, "Race", "TROUPE_DBOS_KILL_ROLE=R3")
			assert.JSONEq(t, `"three"`, string(out))
			// h-child: the racers run at once; either may win, and the
			// loser's call may be made (once) before it is cancelled.
			// Neither is asked again after the kill.
			assert.LessOrEqual(t, counts["R1"], 1)
			assert.LessOrEqual(t, counts["R2"], 1)
			assert.GreaterOrEqual(t, counts["R1"]+counts["R2"], 1)
			assert.Equal(t, 2, counts["R3"])
		})
	}
}
