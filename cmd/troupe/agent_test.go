package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store/postgres"
)

// afterSales copies examples/after_sales into a temporary folder, enters
// it and returns the common flags of its commands.
func afterSales(t *testing.T) []string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "examples", "after_sales"))
	require.NoError(t, err)
	dir := inTempDir(t)
	for _, name := range []string{"base.yaml", "agent.yaml", "tools.yaml", "model.yaml"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	return []string{"--llm-script", "model.yaml", "--tool-script", "tools.yaml", "--store", filepath.Join(dir, "runs.db")}
}

func TestAgentRunPauseAndResume(t *testing.T) {
	for _, approve := range []bool{true, false} {
		t.Run(map[bool]string{true: "approve", false: "reject"}[approve], func(t *testing.T) {
			common := afterSales(t)
			runArgs := append([]string{"agent", "run", "agent.yaml", "--session", "s1"}, common...)
			code, out, errOut := runCLI(t, append(runArgs, "--inputs", `{"shop": "Trailhead"}`, "--input", "refund please")...)
			require.Equal(t, 0, code, errOut)
			assert.Equal(t, "Happy to help with a refund. What is your order number?\n", out)
			assert.Equal(t, "session: s1\n", errOut)

			code, out, errOut = runCLI(t, append(runArgs, "--input", "It is A-1001")...)
			assert.Equal(t, exitPaused, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "Agent after_sales paused: create_refund_ticket")
			assert.Contains(t, errOut, "troupe agent resume agent.yaml --session s1 --store ")

			// A turn while the call waits is refused.
			code, _, errOut = runCLI(t, append(runArgs, "--input", "hello?")...)
			assert.Equal(t, exitFail, code)
			assert.Contains(t, errOut, "waits for an approval of create_refund_ticket")

			decision := []string{"--approve"}
			if !approve {
				decision = []string{"--reject", "--reason", "not eligible"}
			}
			resume := append(append([]string{"agent", "resume", "agent.yaml", "--session", "s1", "--json"}, common...), decision...)
			code, out, errOut = runCLI(t, resume...)
			if approve {
				require.Equal(t, 0, code, errOut)
				var res map[string]any
				require.NoError(t, json.Unmarshal([]byte(out), &res))
				assert.Equal(t, "s1", res["session"])
				assert.Equal(t, "final_state", res["status"])
				assert.Equal(t, "refunded", res["state"])
				assert.Contains(t, res["answer"], "RF-7")
				return
			}
			// The rejection went back to the model, which answered.
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, `"state": "verified"`)
			assert.Contains(t, out, "a colleague will get back to you")
		})
	}
}

func TestAgentTrace(t *testing.T) {
	common := afterSales(t)
	args := append([]string{"agent", "run", "agent.yaml", "--trace", "--inputs", `{"shop": "T"}`, "--input", "It is A-1001"}, common...)
	code, _, errOut := runCLI(t, args...)
	require.Equal(t, exitPaused, code)
	var kinds []string
	sc := bufio.NewScanner(strings.NewReader(errOut))
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "{") {
			continue
		}
		var step map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &step))
		assert.Equal(t, "after_sales", step["agent"])
		kinds = append(kinds, step["kind"].(string)+":"+step["state"].(string))
	}
	assert.Equal(t, []string{"model:identify", "tool:identify", "transition:verified", "model:verified", "approval:verified"}, kinds)
}

func TestAgentChat(t *testing.T) {
	common := afterSales(t)
	var out, errOut strings.Builder
	code := run(append([]string{"agent", "chat", "agent.yaml", "--session", "c1", "--inputs", `{"shop": "T"}`}, common...),
		strings.NewReader("hello\n\nwhat now?\n"), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	assert.Equal(t, strings.Repeat("Happy to help with a refund. What is your order number?\n", 2), out.String())
	assert.Contains(t, errOut.String(), "Talking with after_sales (session c1); Ctrl-D ends.")
}

func TestAgentCommandErrors(t *testing.T) {
	common := afterSales(t)
	require.NoError(t, os.WriteFile("bad.yaml", []byte("agent:\n  name: x\n  max_step: 3\n"), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no input", []string{"agent", "run", "agent.yaml"}, exitUsage, "--input is required"},
		{"resume without decision", []string{"agent", "resume", "agent.yaml", "--session", "x"}, exitUsage, "--approve or --reject"},
		{"resume without pause", append([]string{"agent", "resume", "agent.yaml", "--session", "none", "--approve"}, common...), exitFail, "has no call waiting for approval"},
		{"invalid file", append([]string{"agent", "run", "bad.yaml", "--input", "x"}, common...), exitFail, `bad.yaml:3:3: error: agent.max_step: unknown key "max_step" (did you mean "max_steps"?)`},
		{"unknown tool", []string{"agent", "run", "agent.yaml", "--input", "x", "--llm-script", "model.yaml"}, exitFail, `unknown tool "query_order"`},
		{"validate", []string{"validate", "bad.yaml"}, exitFail, `bad.yaml:2:3: error: agent: missing required key "system_prompt"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestSchemaAgent(t *testing.T) {
	code, out, errOut := runCLI(t, "schema", "--agent")
	require.Equal(t, 0, code, errOut)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "Troupe agent file (troupe.agent/v1)", doc["title"])
}

func TestAgentChatApprovals(t *testing.T) {
	tests := []struct {
		name, input string
		code        int
		out, errOut string
	}{
		{"approved", "It is A-1001\ny\n", 0, "Your refund ticket RF-7 is open; 89.90 will be back on your card within five days.\n", "Approve create_refund_ticket"},
		{"rejected", "It is A-1001\nno\n", 0, "I could not open the refund this time; a colleague will get back to you about it.\n", "Approve create_refund_ticket"},
		{"end of input", "It is A-1001\n", exitPaused, "", "troupe agent resume agent.yaml --session c1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			common := afterSales(t)
			var out, errOut strings.Builder
			code := run(append([]string{"agent", "chat", "agent.yaml", "--session", "c1", "--inputs", `{"shop": "T"}`}, common...),
				strings.NewReader(tt.input), &out, &errOut)
			assert.Equal(t, tt.code, code, errOut.String())
			assert.Equal(t, tt.out, out.String())
			assert.Contains(t, errOut.String(), tt.errOut)
		})
	}
}

func TestAgentSessionsInPostgres(t *testing.T) {
	dsn := os.Getenv("TROUPE_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TROUPE_POSTGRES_DSN is not set; CI must test PostgreSQL")
		}
		t.Skip("TROUPE_POSTGRES_DSN is not set: PostgreSQL is not tested")
	}
	common := afterSales(t)
	common[len(common)-1] = dsn // --store
	session := fmt.Sprintf("pg-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		if pg, err := postgres.Open(context.Background(), dsn); err == nil {
			_ = pg.Delete(context.Background(), session)
			_ = pg.Close()
		}
	})
	code, _, errOut := runCLI(t, append([]string{"agent", "run", "agent.yaml", "--session", session, "--inputs", `{"shop": "T"}`, "--input", "It is A-1001"}, common...)...)
	require.Equal(t, exitPaused, code, errOut)
	code, out, errOut := runCLI(t, append([]string{"agent", "resume", "agent.yaml", "--session", session, "--approve"}, common...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "RF-7")
}
