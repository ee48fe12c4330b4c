package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/mcp"
)

// everythingVariable names the entry point (dist/index.js) of the npm
// package @modelcontextprotocol/server-everything, which .ci/run installs
// into a temporary folder.
const everythingVariable = "TROUPE_MCP_EVERYTHING"

// TestRunCallsServerEverythingOverStdio runs a real third-party MCP server,
// the protocol's reference test server, over stdio through troupe run: a
// scripted agent calls its echo tool, named as CrewAI names it, and answers
// once the server's reply is in the conversation.
func TestRunCallsServerEverythingOverStdio(t *testing.T) {
	entry := os.Getenv(everythingVariable)
	_, nodeErr := exec.LookPath("node")
	if entry == "" || nodeErr != nil {
		msg := everythingVariable + " is not set to @modelcontextprotocol/server-everything's dist/index.js, or node is missing (.ci/run installs the package)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := inTempDir(t)
	srv := mcp.Server{Command: "node", Args: []string{entry, "stdio"}}
	echo := mcp.ToolName(srv.ToolPrefix(), "echo")
	flowFile(t, dir, "flow.yaml", `schema: crewai.flow/v1
name: Everything
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: Tester
        goal: Check the server
        backstory: Careful.
        input: "Have the server echo a greeting"
        mcps:
          - command: node
            args: [`+strconv.Quote(entry)+`, stdio]
`)
	flowFile(t, dir, "replies.yaml", `replies:
  - match: "Echo: hello from troupe"
    text: "The server echoed the greeting."
  - tool_calls: [{name: `+echo+`, arguments: {message: "hello from troupe"}}]
`)
	code, out, errOut := runCLI(t, "run", "flow.yaml", "--llm-script", "replies.yaml", "--json")
	require.Equal(t, 0, code, errOut)
	var report struct {
		Result struct {
			Raw      string `json:"raw"`
			Messages []struct {
				Role    string `json:"role"`
				Name    string `json:"name"`
				Content string `json:"content"`
			} `json:"messages"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &report), out)
	assert.Equal(t, "The server echoed the greeting.", report.Result.Raw)
	var toolMsgs []string
	for _, m := range report.Result.Messages {
		if m.Role == "tool" {
			assert.Equal(t, echo, m.Name)
			toolMsgs = append(toolMsgs, m.Content)
		}
	}
	assert.Equal(t, []string{"Echo: hello from troupe"}, toolMsgs)
	assert.Empty(t, processesRunning(t, entry), "the server is stopped when the run ends")
}

// processesRunning lists the pids whose command line mentions arg.
func processesRunning(t *testing.T, arg string) []int {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	require.NoError(t, err)
	var out []int
	for _, path := range cmdlines {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(b, []byte(arg)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		out = append(out, pid)
	}
	return out
}
