//go:build unix

package main

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/sqlite"
)

// slowReplies makes the model take an hour to answer.
const slowReplies = "replies:\n  - {text: late, delay: 1h}\n"

// Ctrl-C (SIGINT) cancels the run through its context, the run stops, and
// troupe exits with 130 saying it was interrupted, for run and resume.
func TestInterruptExits130(t *testing.T) {
	// The test process keeps its own handler, so a SIGINT that arrives
	// before troupe listens cannot end the test binary.
	mine := make(chan os.Signal, 1)
	signal.Notify(mine, os.Interrupt)
	defer signal.Stop(mine)

	cases := []struct {
		name string
		args func(t *testing.T, dir string) []string
	}{
		{name: "run", args: func(t *testing.T, dir string) []string {
			return []string{"run", flowFile(t, dir, "flow.yaml", agentFlow), "--inputs", `{"question": "Why?"}`,
				"--llm-script", flowFile(t, dir, "replies.yaml", slowReplies)}
		}},
		{name: "run --json", args: func(t *testing.T, dir string) []string {
			return []string{"run", flowFile(t, dir, "flow.yaml", agentFlow), "--json", "--inputs", `{"question": "Why?"}`,
				"--llm-script", flowFile(t, dir, "replies.yaml", slowReplies)}
		}},
		{name: "resume", args: func(t *testing.T, dir string) []string {
			// A run of the agent flow, stopped before its method ran, is
			// resumed from the store: the method runs, and waits.
			path := flowFile(t, dir, "flow.yaml", "persist: {enabled: true}\n"+agentFlow)
			return []string{"resume", path, "--id", "stopped-1", "--llm-script", flowFile(t, dir, "replies.yaml", slowReplies)}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			args := c.args(t, dir)
			if c.name == "resume" {
				// Save the run: a first run is interrupted the same way,
				// once it holds its claim on the store (an interrupt that
				// came before the run started would leave nothing to
				// resume).
				code, _, errOut := interruptWhen(t, claimed(t, "stopped-1"), "run", args[1], "--inputs", `{"id": "stopped-1", "question": "Why?"}`,
					"--llm-script", args[len(args)-1])
				require.Equal(t, exitInterrupted, code, errOut)
			}
			code, out, errOut := interrupt(t, args...)
			assert.Equal(t, exitInterrupted, code, errOut)
			assert.Empty(t, out)
			assert.Equal(t, "troupe: interrupted\n", errOut)
		})
	}
}

// claimed reports whether the run id is claimed in the CLI's store in
// the working folder: a run holds it while it runs.
func claimed(t *testing.T, id string) func() bool {
	return func() bool {
		if _, err := os.Stat(".troupe/flows.db"); err != nil {
			return false
		}
		st, err := sqlite.Open(".troupe/flows.db")
		if err != nil {
			return false
		}
		defer st.Close()
		err = st.Claim(t.Context(), id, "probe", time.Millisecond)
		if err == nil {
			_ = st.Release(t.Context(), id, "probe")
		}
		return errors.Is(err, store.ErrClaimed)
	}
}

// interrupt runs troupe and sends SIGINT to the process until it returns.
func interrupt(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return interruptWhen(t, func() bool { return true }, args...)
}

// interruptWhen is interrupt sending SIGINT only once ready reports true.
func interruptWhen(t *testing.T, ready func() bool, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runCLI(t, args...)
		done <- result{code, out, errOut}
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for {
		select {
		case r := <-done:
			return r.code, r.out, r.errOut
		case <-tick.C:
			if ready() {
				require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
			}
		case <-deadline:
			t.Fatal("troupe did not stop after SIGINT")
		}
	}
}
