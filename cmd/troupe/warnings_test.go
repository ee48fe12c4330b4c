package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typoFlow runs intake, but its second method listens to "intak": a
// warning, and the method never runs. persist saves the run, so the store
// file shows whether it ran.
const typoFlow = `schema: crewai.flow/v1
name: Typo
persist: {enabled: true}
methods:
  intake: {start: true, do: {call: expression, expr: "'taken in'"}}
  triage: {listen: intak, do: {call: expression, expr: "'triaged'"}}
`

// validateOutput is what validate prints for path: stderr lines, and the
// diagnostics of --json.
func validateOutput(t *testing.T, path string) (string, []map[string]any) {
	t.Helper()
	_, _, errOut := runCLI(t, "validate", path)
	require.NotEmpty(t, errOut)
	_, out, _ := runCLI(t, "validate", "--json", path)
	var diags []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &diags), out)
	require.NotEmpty(t, diags)
	return errOut, diags
}

// run prints the definition's warnings on stderr in validate's format, and
// still runs it.
func TestRunPrintsWarnings(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", typoFlow)
	warnings, _ := validateOutput(t, path)

	code, out, errOut := runCLI(t, "run", path)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "taken in\n", out)
	assert.Equal(t, warnings, errOut)
	assert.Contains(t, errOut, `warning: methods.triage.listen: "intak" names no method`)
}

// With --json the warnings are in the output, under "warnings", as
// validate --json writes them, and not on stderr.
func TestRunJSONHoldsWarnings(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", typoFlow)
	_, diags := validateOutput(t, path)

	code, out, errOut := runCLI(t, "run", path, "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Empty(t, errOut)
	var got struct {
		Result   string
		Warnings []map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "taken in", got.Result)
	assert.Equal(t, diags, got.Warnings)
}

// --strict turns warnings into errors: exit 1, the warnings and why on
// stderr, and nothing runs (no run is saved).
func TestRunStrictRefusesWarnings(t *testing.T) {
	for _, extra := range [][]string{nil, {"--json"}} {
		t.Run(strings.Join(append([]string{"run", "--strict"}, extra...), " "), func(t *testing.T) {
			dir := inTempDir(t)
			path := flowFile(t, dir, "flow.yaml", typoFlow)
			warnings, _ := validateOutput(t, path)

			store := filepath.Join(dir, "runs.db")
			code, out, errOut := runCLI(t, append([]string{"run", path, "--strict", "--store", store}, extra...)...)
			assert.Equal(t, exitFail, code)
			assert.Empty(t, out)
			assert.Equal(t, warnings+"troupe: "+path+": 2 warnings, and --strict makes warnings errors\n", errOut)
			assert.NoFileExists(t, store, "nothing ran")

			code, _, errOut = runCLI(t, "run", path, "--store", store)
			require.Equal(t, exitOK, code, errOut)
			assert.FileExists(t, store, "without --strict it runs and is saved")
		})
	}
}

// resume prints the warnings too, and --strict refuses to resume.
func TestResumePrintsWarnings(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", reviewFlow+"  typo: {listen: publsh, do: {call: expression, expr: \"'x'\"}}\n")
	warnings, _ := validateOutput(t, path)
	id := pausedRun(t, path)

	code, _, errOut := runCLI(t, "resume", path, "--id", id, "--feedback", "approved", "--strict")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "--strict makes warnings errors")

	code, out, errOut := runCLI(t, "resume", path, "--id", id, "--feedback", "approved")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Published draft-AI\n", out)
	assert.Equal(t, warnings, errOut)
}

// NaN and infinities, which JSON numbers cannot be, do not stop the result
// from printing: they are written as the strings "NaN", "Infinity" and
// "-Infinity", with and without --json.
func TestRunPrintsNonFiniteNumbers(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", `schema: crewai.flow/v1
name: Odd
methods:
  odd: {start: true, do: {call: expression, expr: "[1.0 / 0.0, -1.0 / 0.0, double('NaN'), 1.5]"}}
  wrap: {listen: odd, do: {call: expression, expr: "{'ratio': outputs.odd[0], 'fine': 2}"}}
`)
	code, out, errOut := runCLI(t, "run", path, "--json")
	require.Equal(t, exitOK, code, errOut)
	var got struct {
		Result  map[string]any
		Outputs map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, map[string]any{"ratio": "Infinity", "fine": 2.0}, got.Result)
	assert.Equal(t, []any{"Infinity", "-Infinity", "NaN", 1.5}, got.Outputs["odd"])

	code, out, errOut = runCLI(t, "run", path)
	require.Equal(t, exitOK, code, errOut)
	assert.JSONEq(t, `{"ratio": "Infinity", "fine": 2}`, out)
}
