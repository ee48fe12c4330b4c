package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// troupe init creates a project folder in which troupe run works at once.
func TestInitCreatesARunnableProject(t *testing.T) {
	cases := []struct {
		name, folder, flowName string
	}{
		{name: "Research Flow", folder: "research_flow", flowName: "ResearchFlow"},
		{name: "lead-scoring", folder: "lead_scoring", flowName: "LeadScoring"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			code, out, errOut := runCLI(t, "init", c.name)
			require.Equal(t, exitOK, code, errOut)
			assert.Contains(t, out, "Created "+c.folder+"/")
			for _, f := range []string{"flow.yaml", "AGENTS.md", "README.md", ".gitignore"} {
				assert.FileExists(t, filepath.Join(dir, c.folder, f))
			}
			data, err := os.ReadFile(filepath.Join(dir, c.folder, "flow.yaml"))
			require.NoError(t, err)
			assert.Contains(t, string(data), "name: "+c.flowName+"\n")

			t.Chdir(filepath.Join(dir, c.folder))
			code, _, errOut = runCLI(t, "validate", "flow.yaml")
			assert.Equal(t, exitOK, code, errOut)
			assert.Empty(t, errOut, "the scaffold has no warnings")

			code, out, errOut = runCLI(t, "run")
			assert.Equal(t, exitOK, code, errOut)
			assert.Equal(t, "AI agents\n", out)

			code, out, errOut = runCLI(t, "run", "--inputs", `{"topic": "robots"}`)
			assert.Equal(t, exitOK, code, errOut)
			assert.Equal(t, "robots\n", out)
		})
	}
}

func TestInitRefusesAnExistingFolder(t *testing.T) {
	dir := inTempDir(t)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "research_flow"), 0o755))
	code, out, errOut := runCLI(t, "init", "Research Flow")
	assert.Equal(t, exitFail, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Folder research_flow already exists.")
	entries, err := os.ReadDir(filepath.Join(dir, "research_flow"))
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing is written into the existing folder")
}

func TestInitNeedsOneName(t *testing.T) {
	inTempDir(t)
	for _, args := range [][]string{{"init"}, {"init", "a", "b"}} {
		code, out, errOut := runCLI(t, args...)
		assert.Equal(t, exitUsage, code, args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "accepts 1 arg", args)
	}
}
