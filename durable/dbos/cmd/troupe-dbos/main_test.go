package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
)

const smokeFlow = `
schema: crewai.flow/v1
name: Smoke
methods:
  a: {start: true, do: {call: expression, expr: "state.n + 1"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a * 2"}}
`

// TestStartResultRuns starts a run with the command against a worker on
// SQLite, waits for its result and lists it; starting it again is one run.
func TestStartResultRuns(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "flow.yaml")
	require.NoError(t, os.WriteFile(file, []byte(smokeFlow), 0o600))
	url := "sqlite://" + filepath.Join(dir, "dbos.db")
	def, err := flow.Load(file)
	require.NoError(t, err)
	dctx, err := transact.NewContext(context.Background(), transact.Config{AppName: "troupe", DatabaseURL: url,
		ApplicationVersion: troupedbos.AppVersion("troupe", def), ExecutorID: "test", Logger: logger()})
	require.NoError(t, err)
	_, err = troupedbos.NewWorker(dctx, troupedbos.Options{Flows: map[string]*flow.Definition{"Smoke": def}, Queue: "troupe-runs"})
	require.NoError(t, err)
	require.NoError(t, transact.Launch(dctx))
	defer transact.Shutdown(dctx, 5*time.Second)

	cli := func(args ...string) string {
		var out, errb bytes.Buffer
		require.Equal(t, 0, run(args, &out, &errb), errb.String())
		return out.String()
	}
	for range 2 {
		assert.Equal(t, "t1\n", cli("start", "--dbos", url, file, "--inputs", `{"n": 20}`, "--id", "t1"))
	}
	assert.Equal(t, "42\n", cli("result", "--dbos", url, "t1"))
	assert.Regexp(t, `^t1\tSmoke\tSUCCESS\ttest\t\d{4}-\d\d-\d\dT[0-9:]+Z\n$`, cli("runs", "--dbos", url))
	assert.Empty(t, cli("runs", "--dbos", url, "--flow", "Other"))
	assert.Empty(t, cli("runs", "--dbos", url, "--status", "PENDING"))
	assert.Equal(t, `{"phase":"done"}`+"\n", cli("status", "--dbos", url, "t1"))
	assert.Equal(t, `{"seq":1,"kind":"started","method":"a","invocation":1}`+"\n"+
		`{"seq":2,"kind":"finished","method":"a","invocation":1}`+"\n"+
		`{"seq":3,"kind":"started","method":"b","invocation":1}`+"\n"+
		`{"seq":4,"kind":"finished","method":"b","invocation":1}`+"\n", cli("watch", "--dbos", url, "t1"))
	assert.Empty(t, cli("recover", "--dbos", url, "gone-executor"))
	assert.Empty(t, cli("cancel", "--dbos", url, "t1"), "a finished run: nothing to cancel")
	var out, errb bytes.Buffer
	assert.Equal(t, 1, run([]string{"cancel", "--dbos", url, "nope"}, &out, &errb))
	assert.Equal(t, "troupe-dbos: dbos: no such run: nope\n", errb.String())
}
