package skill_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/skill"
)

// The catalog block is CrewAI's, word for word.
func TestCatalogBlockGolden(t *testing.T) {
	dir := t.TempDir()
	library(t, dir)
	set := resolve(t, dir, "lib")
	assert.Equal(t, "\n\n"+golden(t, "catalog.txt"), skill.PromptSection(nil, skill.Catalog(set.Entries), skill.LoaderName))
}

// Always-on skills come first, then the catalog naming the loader by the
// name it got; a skill without a body shows its metadata.
func TestAlwaysOnAndCatalogGolden(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "lib/pdf-tools", "SKILL.md", skillMD("pdf-tools", "Extract text from PDF files.", "x"))
	set := resolve(t, dir,
		"---\nname: tone\ndescription: Keep answers friendly.\n---\nAlways thank the user.\nNever use jargon.\n",
		"lib",
		"---\nname: empty-body\ndescription: A skill with no instructions.\n---\n")
	taken := &action.ToolFunc{ToolSpec: llm.ToolSpec{Name: "Load Skill"}}
	spec := &action.AgentSpec{Role: "R", Tools: []action.Tool{taken}}
	skill.Attach(spec, set, skill.Options{})
	assert.Equal(t, "\n\n"+golden(t, "always_on_and_catalog.txt"), spec.SkillPrompt)
	assert.Equal(t, []string{"Load Skill", "load_skill_2"}, toolNames(spec), "no file to read, no read_skill_file")
}

// The loader returns the instructions block, with the skill's resource
// files listed (not read).
func TestLoadedBlockGolden(t *testing.T) {
	dir := t.TempDir()
	library(t, dir)
	spec := &action.AgentSpec{Role: "R"}
	skill.Attach(spec, resolve(t, dir, "lib"), skill.Options{})
	out, err := tool(t, spec, "load_skill").Call(t.Context(), json.RawMessage(`{"skill_name": "pdf-tools"}`))
	require.NoError(t, err)
	assert.Equal(t, golden(t, "loaded_with_resources.txt"), out)
}

// An agent without skills gets no section, no tool and no session.
func TestNoSkillsNoSection(t *testing.T) {
	assert.Empty(t, skill.PromptSection(nil, nil, skill.LoaderName))
	spec := &action.AgentSpec{Role: "R"}
	skill.Attach(spec, resolve(t, t.TempDir()), skill.Options{})
	assert.Empty(t, spec.SkillPrompt)
	assert.Empty(t, spec.Tools)
	assert.Nil(t, spec.Session)
}

func toolNames(spec *action.AgentSpec) []string {
	var out []string
	for _, t := range spec.Tools {
		out = append(out, t.Spec().Name)
	}
	return out
}

// tool finds a tool of spec by name.
func tool(t *testing.T, spec *action.AgentSpec, name string) action.Tool {
	t.Helper()
	for _, tl := range spec.Tools {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q among %v", name, toolNames(spec))
	return nil
}
