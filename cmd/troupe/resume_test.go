package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store/sqlite"
)

// TestResumeEditedDefinitionNeedsForce edits the flow file of a paused run:
// resume refuses it and says how to insist; --force resumes with the
// edited file, keeping what ran before the pause.
func TestResumeEditedDefinitionNeedsForce(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", reviewFlow)
	id := pausedRun(t, path)
	flowFile(t, dir, "flow.yaml", strings.Replace(reviewFlow, "'Published '", "'Released '", 1))

	code, out, errOut := troupe(t, "", "resume", path, "--id", id, "--feedback", "approved")
	assert.Equal(t, exitFail, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "definition changed")
	assert.Contains(t, errOut, "--force")

	code, out, errOut = troupe(t, "", "resume", path, "--id", id, "--feedback", "approved", "--force")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Released draft-AI\n", out)
}

// TestResumeClaimedElsewhere resumes a run another process holds: resume
// fails and says so, and succeeds once the other process lets go.
func TestResumeClaimedElsewhere(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", reviewFlow)
	id := pausedRun(t, path)
	other, err := sqlite.Open(sqlite.DefaultPath)
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, other.Claim(t.Context(), id, "other-host/42/abc", time.Hour))

	code, out, errOut := troupe(t, "", "resume", path, "--id", id, "--feedback", "approved")
	assert.Equal(t, exitFail, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "is being resumed or is still running elsewhere")
	assert.Contains(t, errOut, "other-host/42/abc", "the holder is named")

	require.NoError(t, other.Release(t.Context(), id, "other-host/42/abc"))
	code, out, errOut = troupe(t, "", "resume", path, "--id", id, "--feedback", "approved")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Published draft-AI\n", out)
}
