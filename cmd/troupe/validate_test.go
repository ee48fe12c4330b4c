package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// write creates a file named name with body in a temporary folder.
func write(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

const (
	goodFlow = "name: Good\nmethods:\n  begin: {start: true, do: {call: expression, expr: state.topic}}\n"
	warnFlow = "name: Warn\nmethods:\n  begin: {start: true, do: {call: expression, expr: state.topic}}\n  typo: {listen: begni, do: {call: expression, expr: '1'}}\n"
	badFlow  = "name: Bad\nmethods:\n  begin:\n    start: true\n    do: {call: expression, expr: score}\n  other:\n    listen: begin\n    do: {call: each, in: state.rows, do: []}\n"
)

// A valid file is reported ok on stdout, so a successful check says so.
func TestValidateValidFileSaysOK(t *testing.T) {
	path := write(t, "good.yaml", goodFlow)
	code, out, errOut := troupe(t, "", "validate", path)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, path+": ok\n", out)
	assert.Empty(t, errOut)

	code, out, _ = troupe(t, goodFlow, "validate", "-")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "<stdin>: ok\n", out)
}

func TestValidateWarningsPrintButPass(t *testing.T) {
	path := write(t, "warn.yaml", warnFlow)
	code, out, errOut := troupe(t, "", "validate", path)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, errOut, path+":4:3: warning: methods.typo: ")
	assert.Contains(t, errOut, path+":4:10: warning: methods.typo.listen: \"begni\" names no method")
	assert.Equal(t, path+": ok (2 warnings)\n", out)
}

// --strict turns warnings into errors: exit 1, no "ok", and a line saying
// why; files without warnings still pass.
func TestValidateStrictFailsOnWarnings(t *testing.T) {
	warn := write(t, "warn.yaml", warnFlow)
	good := write(t, "good.yaml", goodFlow)
	code, out, errOut := troupe(t, "", "validate", "--strict", warn, good)
	assert.Equal(t, exitFail, code)
	assert.Equal(t, good+": ok\n", out)
	assert.Contains(t, errOut, warn+":4:10: warning: methods.typo.listen: ")
	assert.Contains(t, errOut, "troupe: 2 warnings, and --strict makes warnings errors\n")

	code, out, _ = troupe(t, "", "validate", "--strict", "--json", warn)
	assert.Equal(t, exitFail, code)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Len(t, got, 2)

	code, out, errOut = troupe(t, "", "validate", "--strict", good)
	assert.Equal(t, exitOK, code, errOut)
	assert.Equal(t, good+": ok\n", out)
}

func TestValidateReportsEveryErrorOfEveryFile(t *testing.T) {
	bad := write(t, "bad.yaml", badFlow)
	good := write(t, "good.yaml", goodFlow)
	code, out, errOut := troupe(t, "", "validate", bad, good)
	assert.Equal(t, exitFail, code)
	assert.Equal(t, good+": ok\n", out, "only the good file is ok")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	require.Len(t, lines, 2, errOut)
	assert.Equal(t, bad+":5:34: error: methods.begin.do.expr: unknown CEL root at methods.begin.do.expr: 'score'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.", lines[0])
	assert.Equal(t, bad+":8:38: error: methods.other.do.do: each.do must contain at least one step", lines[1])
}

func TestValidateMissingFileFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	code, _, errOut := troupe(t, "", "validate", path)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, path+": error: cannot read the definition")
}

func TestValidateReadsStdin(t *testing.T) {
	code, _, errOut := troupe(t, "methods: {}\n", "validate", "-")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "<stdin>:1:1: error: name: Field required")
}

func TestValidateJSON(t *testing.T) {
	bad := write(t, "bad.yaml", badFlow)
	warn := write(t, "warn.json", `{"name": "W", "methods": {"a": {"start": true, "emit": ["x"], "do": {"call": "expression", "expr": "1"}}}}`)
	code, out, errOut := troupe(t, "", "validate", "--json", warn, bad)
	assert.Equal(t, exitFail, code)
	assert.Empty(t, errOut)

	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got, 3)
	for _, d := range got {
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		assert.ElementsMatch(t, []string{"file", "line", "column", "path", "severity", "code", "message"}, keys)
	}
	assert.Equal(t, map[string]any{
		"file": warn, "line": 1.0, "column": 48.0, "path": "methods.a.emit", "severity": "warning",
		"code": "emit_without_router", "message": "emit is only used by routers to declare downstream events; add router: true or remove emit",
	}, got[0])
	assert.Equal(t, "error", got[1]["severity"])
	assert.Equal(t, "cel_unknown_root", got[1]["code"])
	assert.Equal(t, "each_empty", got[2]["code"])
}

func TestValidateJSONPrintsAnEmptyArray(t *testing.T) {
	code, out, _ := troupe(t, "", "validate", "--json", write(t, "good.yaml", goodFlow))
	assert.Equal(t, exitOK, code)
	assert.JSONEq(t, "[]", out)
}

func TestValidateConformanceFixtures(t *testing.T) {
	dir := conformanceDir(t)
	valid, _ := filepath.Glob(filepath.Join(dir, "valid", "*.*"))
	invalid, _ := filepath.Glob(filepath.Join(dir, "invalid", "*.*"))
	require.NotEmpty(t, valid)
	code, _, errOut := troupe(t, "", append([]string{"validate"}, valid...)...)
	assert.Equal(t, exitOK, code, errOut)
	for _, path := range invalid {
		code, _, errOut := troupe(t, "", "validate", path)
		assert.Equal(t, exitFail, code, path)
		assert.Contains(t, errOut, path+":", "diagnostics name the file")
	}
}

// conformanceDir returns CrewAI's conformance corpus, skipping when absent.
func conformanceDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TROUPE_CONFORMANCE")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "conformance", "crewai")
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.md")); err != nil {
		t.Skipf("conformance corpus not found at %s (set TROUPE_CONFORMANCE): %v", dir, err)
	}
	return dir
}
