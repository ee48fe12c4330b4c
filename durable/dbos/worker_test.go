package dbos_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite"
	"github.com/jackc/pgx/v5"

	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
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
  report: {listen: gather, do: {call: expression, expr: "outputs.gather.raw"}}
`

const reviewFlow = `
schema: crewai.flow/v1
name: Review
methods:
  draft:
    start: true
    human_feedback: {message: "Publish?", emit: [approved, rejected], default_outcome: rejected}
    do: {call: agent, with: {role: Writer, goal: Write, backstory: Careful., input: "Write the draft."}}
  publish: {listen: approved, do: {call: agent, with: {role: Editor, goal: Publish, backstory: Quick., input: "Publish the draft."}}}
  discard: {listen: rejected, do: {call: expression, expr: "'discarded'"}}
  report: {listen: publish, do: {call: expression, expr: "outputs.publish.raw"}}
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

// testFlows are the kill tests' flows by name (TROUPE_DBOS_FLOW).
var testFlows = map[string]string{"Steps": stepsFlow, "Tools": toolsFlow, "Review": reviewFlow, "Fan": fanFlow, "Race": raceFlow}

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

// child is a worker process. It runs TROUPE_DBOS_FLOW (Steps when
// empty) with the effect server at TROUPE_DBOS_MODEL_URL and
// TROUPE_DBOS_TOOL_URL as its model and tools, on the DBOS database
// TROUPE_DBOS_DB (schema TROUPE_DBOS_SCHEMA) as executor
// TROUPE_DBOS_EXECUTOR. TROUPE_DBOS_RECOVER names a dead executor whose
// run it takes over; TROUPE_DBOS_START=1 starts run-1 (a Review run then
// notes "run-1/draft#1/pending" to the tool server once it waits for
// feedback, and waits to be killed; otherwise the worker answers
// "approved"). The run's output goes to TROUPE_DBOS_OUT as JSON.
func child() error {
	name := cmp.Or(os.Getenv("TROUPE_DBOS_FLOW"), "Steps")
	src, ok := testFlows[name]
	if !ok {
		return fmt.Errorf("no test flow %q", name)
	}
	toolURL := os.Getenv("TROUPE_DBOS_TOOL_URL")
	opts, err := effectOptions(os.Getenv("TROUPE_DBOS_MODEL_URL"), toolURL)
	if err != nil {
		return err
	}
	def, err := flow.Parse([]byte(src), "flow.yaml")
	if err != nil {
		return err
	}
	dctx, err := transact.NewContext(context.Background(), transact.Config{AppName: "troupe-test", DatabaseURL: os.Getenv("TROUPE_DBOS_DB"),
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
	if os.Getenv("TROUPE_DBOS_LEASE") == "1" { // the sweeper case of TestKilledWorkerRecovers
		l, err := troupedbos.StartLease(context.Background(), dctx, troupedbos.LeaseOptions{DatabaseURL: os.Getenv("TROUPE_DBOS_DB"),
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
	start := os.Getenv("TROUPE_DBOS_START") == "1"
	if start {
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
		if start {
			if err := note(toolURL, "run-1/draft#1/pending"); err != nil {
				return err
			}
			select {} // the test kills this worker while the run waits
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
