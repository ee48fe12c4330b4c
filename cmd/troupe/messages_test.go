package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every error troupe prints is one line that starts with "troupe: ", once,
// whichever layer it comes from.
func TestErrorsArePrefixedOnce(t *testing.T) {
	cases := []struct {
		name string
		args func(t *testing.T, dir string) []string
		want string
	}{
		{name: "missing definition", want: "troupe: Invalid definition path: nope.yaml does not exist.",
			args: func(*testing.T, string) []string { return []string{"run", "nope.yaml"} }},
		{name: "inputs not an object", want: "troupe: Invalid --inputs JSON: expected an object.",
			args: func(t *testing.T, dir string) []string {
				return []string{"run", flowFile(t, dir, "flow.yaml", goodFlow), "--inputs", "[1]"}
			}},
		{name: "a method fails", want: `troupe: flow Failing: method "begin" failed`,
			args: func(t *testing.T, dir string) []string {
				return []string{"run", flowFile(t, dir, "flow.yaml", failingFlow)}
			}},
		{name: "a bad model script", want: "troupe: fake: ",
			args: func(t *testing.T, dir string) []string {
				return []string{"run", flowFile(t, dir, "flow.yaml", agentFlow),
					"--llm-script", flowFile(t, dir, "replies.yaml", "replies:\n  - times: 0\n")}
			}},
		{name: "an unknown run id", want: "troupe: No stored run of flow Good with id \"nope\"",
			args: func(t *testing.T, dir string) []string {
				return []string{"resume", flowFile(t, dir, "flow.yaml", goodFlow), "--id", "nope"}
			}},
		{name: "an existing folder", want: "troupe: Folder taken already exists.",
			args: func(t *testing.T, dir string) []string {
				require.NoError(t, os.Mkdir(filepath.Join(dir, "taken"), 0o755))
				return []string{"init", "taken"}
			}},
		{name: "an unknown plot format", want: `troupe: unknown --format "svg"`,
			args: func(t *testing.T, dir string) []string {
				return []string{"plot", flowFile(t, dir, "flow.yaml", goodFlow), "--format", "svg"}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			code, out, errOut := runCLI(t, c.args(t, dir)...)
			assert.Equal(t, exitFail, code, errOut)
			assert.Empty(t, out)
			assert.True(t, strings.HasPrefix(errOut, c.want), "stderr: %q", errOut)
			assert.Equal(t, 1, strings.Count(errOut, "troupe: "), "stderr: %q", errOut)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		})
	}
}

// init says which folder it made (its name may differ from the one typed)
// and which files are in it.
func TestInitSaysWhatItCreated(t *testing.T) {
	inTempDir(t)
	code, out, errOut := runCLI(t, "init", "my-flow")
	require.Equal(t, exitOK, code, errOut)
	want := "Created my_flow/ (the folder name for \"my-flow\") with the flow MyFlow:\n" +
		"  " + filepath.Join("my_flow", "flow.yaml") + "\n" +
		"  " + filepath.Join("my_flow", "AGENTS.md") + "\n" +
		"  " + filepath.Join("my_flow", "README.md") + "\n" +
		"  " + filepath.Join("my_flow", ".gitignore") + "\n" +
		"Try: cd my_flow && troupe run\n"
	assert.Equal(t, want, out)
	assert.Empty(t, errOut)

	code, out, _ = runCLI(t, "init", "plain")
	require.Equal(t, exitOK, code)
	assert.True(t, strings.HasPrefix(out, "Created plain/ with the flow Plain:\n"), out)
}
