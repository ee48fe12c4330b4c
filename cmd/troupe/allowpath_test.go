package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A knowledge file outside the flow's folder is refused, with the fix in
// the message; --allow-path (repeatable) allows its folder.
func TestRunAllowPath(t *testing.T) {
	top := inTempDir(t)
	flowDir := filepath.Join(top, "flow")
	require.NoError(t, os.MkdirAll(flowDir, 0o755))
	for _, d := range []string{"shared", "other"} {
		require.NoError(t, os.MkdirAll(filepath.Join(top, d), 0o755))
	}
	flowFile(t, filepath.Join(top, "shared"), "policy.md", "Refunds take five business days.")
	path := flowFile(t, flowDir, "flow.yaml", `schema: crewai.flow/v1
name: Kb
methods:
  answer:
    start: true
    do:
      call: agent
      with:
        role: Support
        goal: Answer from the policy
        backstory: Reads the policy.
        knowledge_sources: [../shared/policy.md]
        input: "How long do refunds take?"
`)
	replies := flowFile(t, top, "replies.yaml", "replies:\n  - {match: 'five business days', text: Five days.}\n")

	real, err := filepath.EvalSymlinks(top)
	require.NoError(t, err)
	code, out, errOut := runCLI(t, "run", path, "--llm-script", replies)
	assert.Equal(t, exitFail, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "knowledge_sources[0]: knowledge: ../shared/policy.md resolves to "+filepath.Join(real, "shared", "policy.md"))
	assert.Contains(t, errOut, "--allow-path DIR")

	code, out, errOut = runCLI(t, "run", path, "--llm-script", replies, "--allow-path", "other", "--allow-path", "shared")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Five days.\n", out)
}
