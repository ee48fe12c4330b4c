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

// Every file of a crew declaration is resolved and checked against the
// flow's folder: a crew.jsonc, an agent file or a folder that is a symbolic
// link to a file outside is refused, even though the declaration's own
// path is inside. Links that stay inside, and links into an allowed extra
// folder, are read.
func TestLoadCrewDirRefusesLinksOut(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "flow")
	crew := `{"agents": ["a"], "tasks": [{"description": "d", "expected_output": "e", "agent": "a"}]}`
	agent := `{"role": "R", "goal": "G", "backstory": "B"}`
	write(t, filepath.Join(top, "outside/crew.jsonc"), crew)
	write(t, filepath.Join(top, "outside/agents/a.jsonc"), agent)
	write(t, filepath.Join(top, "outside/a.jsonc"), agent)

	write(t, filepath.Join(root, "crewlink/agents/a.jsonc"), agent)
	write(t, filepath.Join(root, "agentlink/crew.jsonc"), crew)
	write(t, filepath.Join(root, "inside/crew.jsonc"), crew)
	write(t, filepath.Join(root, "inside/agents/real.jsonc"), agent)
	write(t, filepath.Join(root, "extra/crew.jsonc"), crew)
	links := map[string]string{
		"flow/crewlink/crew.jsonc":      "../../outside/crew.jsonc",
		"flow/agentlink/agents":         "../../outside/agents",
		"flow/dirlink":                  "../outside",
		"flow/inside/agents/a.jsonc":    "real.jsonc",
		"flow/extra/agents":             "../../outside/agents",
		"flow/agentfile/agents/a.jsonc": "../../../outside/a.jsonc",
	}
	write(t, filepath.Join(root, "agentfile/crew.jsonc"), crew)
	for rel, target := range links {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(top, rel)), 0o755))
		if err := os.Symlink(target, filepath.Join(top, rel)); err != nil {
			t.Skipf("symbolic links are not available: %v", err)
		}
	}

	tests := []struct {
		name, rel string
		allow     []string
		outside   bool
	}{
		{name: "crew.jsonc links out", rel: "crewlink", outside: true},
		{name: "crew.jsonc links out, named", rel: "crewlink/crew.jsonc", outside: true},
		{name: "agents folder links out", rel: "agentlink", outside: true},
		{name: "an agent file links out", rel: "agentfile", outside: true},
		{name: "the crew folder links out", rel: "dirlink", outside: true},
		{name: "a link that stays inside", rel: "inside"},
		{name: "a link into an allowed folder", rel: "extra", allow: []string{filepath.Join(top, "outside")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cf, err := action.LoadCrewDir(root, tt.rel, tt.allow...)
			if !tt.outside {
				require.NoError(t, err)
				assert.Equal(t, []string{"a"}, cf.Agents)
				return
			}
			require.ErrorIs(t, err, action.ErrOutsideRoot)
			assert.ErrorContains(t, err, "crew declaration path must be within the flow definition directory")
			assert.ErrorContains(t, err, filepath.Join(top, "outside"), "says where the link leads")
			assert.ErrorContains(t, err, root, "names the allowed folder")
		})
	}
}
