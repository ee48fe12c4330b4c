//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run the troupe binary in separate processes, as a person
// would: a paused run is resumed by a new process, and a killed run is
// continued by another one.

// buildTroupe builds the command into a temporary folder.
func buildTroupe(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the troupe binary; skipped with -short")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "troupe")
	out, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build ./cmd/troupe:\n%s", out)
	return bin
}

// process is one finished troupe process.
type process struct {
	code           int
	stdout, stderr string
}

// troupeProcess runs the binary in dir, with no terminal on stdin.
func troupeProcess(t *testing.T, bin, dir string, args ...string) process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = processEnv()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err)
	}
	return process{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// processEnv is the environment without model settings.
func processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TROUPE_MODEL", "MODEL", "OPENAI_BASE_URL",
			"ANTHROPIC_BASE_URL", "CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// crashFlow counts and logs its first method, then waits in the second
// while the file named by state.hold exists, so a test can kill the
// process there; the third reads what the first produced.
const crashFlow = `schema: crewai.flow/v1
name: Crash
persist: {enabled: true}
state: {type: dict, default: {runs_of_first: 0, hold: hold}}
methods:
  first:
    start: true
    do:
      call: script
      code: |
        state["runs_of_first"] = state["runs_of_first"] + 1
        with open("first.log", "a") as f:
            f.write("first ran\n")
        return "first output"
  middle:
    listen: first
    do:
      call: script
      code: |
        import os, time
        while os.path.exists(state["hold"]):
            time.sleep(0.02)
        return "middle output"
  last:
    listen: middle
    do: {call: expression, expr: "outputs.first + ', ' + outputs.middle + ', runs of first: ' + string(state.runs_of_first)"}
`

func TestProcess(t *testing.T) {
	bin := buildTroupe(t)

	// A run that pauses exits with 3 and prints its id; a new process
	// resumes it, and the methods after the pause read outputs.first.
	t.Run("pause, then resume in a new process", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(reviewFlow), 0o600))

		p := troupeProcess(t, bin, dir, "run", "flow.yaml", "--inputs", `{"topic": "robots"}`)
		require.Equal(t, exitPaused, p.code, p.stderr)
		assert.Empty(t, p.stdout)
		m := regexp.MustCompile(`(?m)^  flow id:  (\S+)$`).FindStringSubmatch(p.stderr)
		require.NotNil(t, m, p.stderr)
		id := m[1]
		assert.Contains(t, p.stderr, "troupe resume flow.yaml --id "+id+" --feedback")

		p = troupeProcess(t, bin, dir, "runs", "--status", "paused")
		require.Equal(t, exitOK, p.code, p.stderr)
		assert.Contains(t, p.stdout, id)

		p = troupeProcess(t, bin, dir, "resume", "flow.yaml", "--id", id, "--feedback", "approved", "--json")
		require.Equal(t, exitOK, p.code, p.stderr)
		var res struct {
			Result  string
			Outputs map[string]any
		}
		require.NoError(t, json.Unmarshal([]byte(p.stdout), &res), p.stdout)
		assert.Equal(t, "Published draft-robots", res.Result)
		assert.Equal(t, "draft-robots", res.Outputs["first"])
	})

	// A run killed in its second method continues from the store: the
	// first method is not run again, and the flow finishes.
	t.Run("kill mid-flow, then resume", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not installed: script actions cannot run")
		}
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(crashFlow), 0o600))
		hold := filepath.Join(dir, "hold")
		require.NoError(t, os.WriteFile(hold, nil, 0o600))

		cmd := exec.Command(bin, "run", "flow.yaml", "--allow-scripts", "--inputs", `{"id": "crash-1"}`)
		cmd.Dir = dir
		cmd.Env = processEnv()
		// Its own process group, so the kill reaches the Python child too.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		// Its stderr goes to a file, which the test may read while it runs.
		errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		require.NoError(t, err)
		defer errFile.Close()
		cmd.Stderr = errFile
		stderr := func() string {
			b, _ := os.ReadFile(errFile.Name())
			return string(b)
		}
		require.NoError(t, cmd.Start())
		pgid := cmd.Process.Pid
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-exited
		})

		// Wait until the store shows the first method completed.
		deadline := time.Now().Add(30 * time.Second)
		for {
			p := troupeProcess(t, bin, dir, "runs", "--json")
			require.Equal(t, exitOK, p.code, p.stderr)
			var runs []storedRun
			require.NoError(t, json.Unmarshal([]byte(p.stdout), &runs), p.stdout)
			if len(runs) == 1 && runs[0].FlowID == "crash-1" && runs[0].Method == "first" {
				assert.Equal(t, "running", runs[0].Status)
				break
			}
			select {
			case err := <-exited:
				t.Fatalf("the run ended before it could be killed: %v\n%s", err, stderr())
			default:
			}
			require.True(t, time.Now().Before(deadline), "the first method never completed: %s", stderr())
			time.Sleep(50 * time.Millisecond)
		}
		require.NoError(t, syscall.Kill(-pgid, syscall.SIGKILL))
		err = <-exited
		exited <- err // for the cleanup
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		assert.False(t, exit.Exited(), "killed by a signal")

		require.NoError(t, os.Remove(hold))
		p := troupeProcess(t, bin, dir, "resume", "flow.yaml", "--id", "crash-1", "--allow-scripts", "--json")
		require.Equal(t, exitOK, p.code, p.stderr)
		var res struct {
			Result string
			State  map[string]any
		}
		require.NoError(t, json.Unmarshal([]byte(p.stdout), &res), p.stdout)
		assert.Equal(t, "first output, middle output, runs of first: 1", res.Result)
		assert.EqualValues(t, 1, res.State["runs_of_first"])
		log, err := os.ReadFile(filepath.Join(dir, "first.log"))
		require.NoError(t, err)
		assert.Equal(t, "first ran\n", string(log), "the first method ran again")

		p = troupeProcess(t, bin, dir, "runs", "--json")
		var runs []storedRun
		require.NoError(t, json.Unmarshal([]byte(p.stdout), &runs), p.stdout)
		require.Len(t, runs, 1)
		assert.Equal(t, "completed", runs[0].Status)
	})
}
