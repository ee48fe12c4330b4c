package dbos_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// TestSweeperTakesOverAKilledWorker kills a worker that holds an executor
// lease during its agent's third model call; another worker, with another
// executor id and a lease of its own, takes the run over when the dead
// worker's lease expires, without anyone calling Recover. The output is
// an in-process run's and the finished model calls are not made again.
func TestSweeperTakesOverAKilledWorker(t *testing.T) {
	for dbName, newDB := range databases(t) {
		t.Run(dbName, func(t *testing.T) {
			url, schema := newDB(t)
			dir := t.TempDir()
			log := filepath.Join(dir, "calls.log")
			env := []string{"TROUPE_DBOS_DB=" + url, "TROUPE_DBOS_SCHEMA=" + schema, "TROUPE_DBOS_LOG=" + log, "TROUPE_DBOS_LEASE=1"}

			err := runChild(t, append(env, "TROUPE_DBOS_EXECUTOR=leased-1", "TROUPE_DBOS_KILL_AT=3", "TROUPE_DBOS_START=1")...)
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the first worker must die")
			ws, ok := ee.Sys().(syscall.WaitStatus)
			require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL, "killed by SIGKILL: %v", err)

			outFile := filepath.Join(dir, "out.json")
			require.NoError(t, runChild(t, append(env, "TROUPE_DBOS_OUT="+outFile, "TROUPE_DBOS_EXECUTOR=leased-2")...))
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
