package action_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
)

const conformance = "../../shared/conformance/crewai/valid"

func TestLoadCrewDirFixtures(t *testing.T) {
	for _, dir := range []string{"crew_from_declaration", "crew_from_declaration_relative"} {
		t.Run(dir, func(t *testing.T) {
			root := filepath.Join(conformance, dir)
			if _, err := os.Stat(root); err != nil {
				t.Skip("conformance corpus not present")
			}
			cf, err := action.LoadCrewDir(root, "crews/research_crew")
			require.NoError(t, err)
			assert.Equal(t, "crew.jsonc", filepath.Base(cf.Path))
			assert.Equal(t, []string{"researcher"}, cf.Agents)
			agents := cf.Data["agents"].(map[string]any)
			assert.Equal(t, "Researcher", agents["researcher"].(map[string]any)["role"])
			assert.Equal(t, "Default topic", cf.Data["inputs"].(map[string]any)["topic"])
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func TestLoadCrewDirRules(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "ok/crew.json"), `{"agents": ["a"], "tasks": [{"description": "d", "expected_output": "e", "agent": "a"}]}`)
	write(t, filepath.Join(root, "ok/agents/a.json"), `{"role": "R", "goal": "G", /* comment */ "backstory": "B",}`)
	write(t, filepath.Join(root, "nogoal/crew.jsonc"), `{"agents": ["researcher"], "tasks": [{"description": "d", "expected_output": "e"}]}`)
	write(t, filepath.Join(root, "nogoal/agents/researcher.jsonc"), `{"role": "R", "backstory": "B"}`)
	write(t, filepath.Join(root, "badctx/crew.jsonc"), `{"agents": ["a"], "tasks": [{"description": "d", "expected_output": "e", "context": ["later"]}]}`)
	write(t, filepath.Join(root, "badctx/agents/a.jsonc"), `{"role": "R", "goal": "G", "backstory": "B"}`)
	write(t, filepath.Join(filepath.Dir(root), "outside.jsonc"), `{}`)

	tests := []struct {
		rel, want string
	}{
		{"ok", ""},
		{"ok/crew.json", ""},
		{"nogoal", "crew action: agents.researcher: missing required field 'goal'"},
		{"badctx", "has context reference 'later' but that task has not been defined yet"},
		{"../outside.jsonc", "crew declaration path must be within the flow definition directory"},
		{"missing", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			cf, err := action.LoadCrewDir(root, tt.rel)
			if tt.want != "" {
				require.ErrorContains(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "crew.json", filepath.Base(cf.Path))
		})
	}
	_, err := action.LoadCrewDir(root, "../outside.jsonc")
	assert.ErrorIs(t, err, action.ErrOutsideRoot)
}
