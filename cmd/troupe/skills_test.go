package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// corpusDir holds the skills whose reference verdicts corpus.yaml records.
const corpusDir = "../../skill/testdata"

// `troupe skills validate` agrees with the reference validator (skills-ref)
// on every case of the corpus: the verdict, the exit code, and one problem
// per reference message, containing it.
func TestSkillsValidateAgreesWithReferenceCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "corpus.yaml"))
	require.NoError(t, err)
	var doc struct {
		Cases []struct {
			Path   string   `yaml:"path"`
			Valid  bool     `yaml:"valid"`
			Errors []string `yaml:"errors"`
			Troupe *struct {
				Errors []string `yaml:"errors"`
			} `yaml:"troupe"`
		} `yaml:"cases"`
	}
	require.NoError(t, yaml.Unmarshal(data, &doc))
	require.GreaterOrEqual(t, len(doc.Cases), 30)
	for _, c := range doc.Cases {
		t.Run(c.Path, func(t *testing.T) {
			path := filepath.Join(corpusDir, "corpus", c.Path)
			code, out, errOut := troupe(t, "", "skills", "validate", "--json", path)
			var got []skillReport
			require.NoError(t, json.Unmarshal([]byte(out), &got), "%s%s", out, errOut)
			require.Len(t, got, 1)
			valid, want := c.Valid, c.Errors
			if c.Troupe != nil {
				valid, want = false, c.Troupe.Errors
			}
			assert.Equal(t, valid, got[0].Valid, "%+v", got[0])
			if valid {
				assert.Equal(t, exitOK, code)
				return
			}
			assert.Equal(t, exitFail, code)
			require.Len(t, got[0].Problems, len(want), "%+v", got[0].Problems)
			for i, w := range want {
				assert.Contains(t, got[0].Problems[i].Message, strings.ReplaceAll(w, "{path}", path))
			}
		})
	}
}

// The text output is skills-ref's: "Valid skill: PATH" on stdout, or
// "Validation failed for PATH:" and "  - FILE:LINE:COL: MESSAGE" lines on
// stderr; warnings follow.
func TestSkillsValidateText(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.MkdirAll(good, 0o755))
	require.NoError(t, os.MkdirAll(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(good, "SKILL.md"), []byte("---\nname: good\ndescription: d\nallowed-tools: Bash(ls)\n---\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("---\nname: Bad\n---\n"), 0o644))

	code, out, errOut := troupe(t, "", "skills", "validate", good, bad, filepath.Join(dir, "none"))
	assert.Equal(t, exitFail, code)
	assert.Equal(t, "Valid skill: "+good+"\n", out)
	md := filepath.Join(bad, "SKILL.md")
	assert.Equal(t, "Warnings for "+good+":\n"+
		"  - "+filepath.Join(good, "SKILL.md")+":4:16: warning: allowed-tools entry 'Bash(ls)' is a pattern, which Troupe does not support: it enforces plain tool names only, so this entry allows no tool\n"+
		"Validation failed for "+bad+":\n"+
		"  - "+md+":2:7: Skill name 'Bad' must be lowercase\n"+
		"  - "+md+":2:7: Directory name 'bad' must match skill name 'Bad'\n"+
		"  - "+md+":2:1: Missing required field in frontmatter: description\n"+
		"Validation failed for "+filepath.Join(dir, "none")+":\n"+
		"  - Path does not exist: "+filepath.Join(dir, "none")+"\n", errOut)

	code, _, errOut = troupe(t, "", "skills", "validate", "--crewai", bad)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, md+":2:7: name: String should match pattern")

	code, out, _ = troupe(t, "", "skills", "validate", good)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "Valid skill: "+good+"\n", out)
}

// skillsFolder writes a folder of two skills and a file that is none.
func skillsFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, desc := range map[string]string{"pdf-tools": "Extract text from PDF files.", "csv-insights": "Summarise CSV\n  files."} {
		p := filepath.Join(dir, "skills", name)
		require.NoError(t, os.MkdirAll(p, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(p, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\nBody.\n"), 0o644))
	}
	p := filepath.Join(dir, "skills", "broken")
	require.NoError(t, os.MkdirAll(p, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p, "SKILL.md"), []byte("no front matter"), 0o644))
	return dir
}

// list prints the catalog: the skills at or one level below each path.
func TestSkillsList(t *testing.T) {
	dir := skillsFolder(t)
	t.Chdir(dir)
	code, out, errOut := troupe(t, "", "skills", "list", "skills", "skills/pdf-tools")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "NAME          DESCRIPTION                   LOCATION\n"+
		"csv-insights  Summarise CSV files.          skills/csv-insights/SKILL.md\n"+
		"pdf-tools     Extract text from PDF files.  skills/pdf-tools/SKILL.md\n", out)
	assert.Contains(t, errOut, "warning: skills: skipped the skill in "+filepath.Join(dir, "skills", "broken"))

	code, out, _ = troupe(t, "", "skills", "list", "--json", "skills/pdf-tools")
	assert.Equal(t, exitOK, code)
	assert.JSONEq(t, `[{"name": "pdf-tools", "description": "Extract text from PDF files.", "location": "skills/pdf-tools/SKILL.md"}]`, out)

	code, _, errOut = troupe(t, "", "skills", "list", "nowhere")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "troupe: Skill search path does not exist or is not a directory: "+filepath.Join(dir, "nowhere"))
}

// prompt prints the block an agent sees, CrewAI's words.
func TestSkillsPrompt(t *testing.T) {
	t.Chdir(skillsFolder(t))
	code, out, _ := troupe(t, "", "skills", "prompt", "skills")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "<available_skills>\n"+
		"These skills are not loaded. Most requests need none of them, so answer directly unless one clearly applies to this request. When one does, call `load_skill` with its exact name to load its full instructions, and do not follow a skill's instructions without loading it first.\n\n"+
		"<skill name=\"csv-insights\">\nSummarise CSV files.\n</skill>\n\n"+
		"<skill name=\"pdf-tools\">\nExtract text from PDF files.\n</skill>\n"+
		"</available_skills>\n", out)
}

const skillsFlow = `name: S
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: Analyst
        goal: Answer
        backstory: Careful.
        input: Extract the text.
        skills: [SKILLS]
`

// validate reads the skills a flow names, at their places in the flow.
func TestValidateChecksSkills(t *testing.T) {
	dir := skillsFolder(t)
	path := filepath.Join(dir, "flow.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(skillsFlow, "SKILLS", "./skills, ./nope", 1)), 0o644))
	code, out, errOut := troupe(t, "", "validate", path)
	assert.Equal(t, exitFail, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, path+":12:18: warning: methods.ask.do.with.skills[0]: skipped the skill in "+filepath.Join(dir, "skills", "broken"))
	assert.Contains(t, errOut, path+":12:28: error: methods.ask.do.with.skills[1]: Skill search path does not exist or is not a directory: "+filepath.Join(dir, "nope"))

	code, _, errOut = troupe(t, "", "run", path, "--llm-script", path)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "Skill search path does not exist or is not a directory")
}

// Scripts run only with --allow-skill-scripts.
func TestRunAllowSkillScripts(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "skills", "pdf-tools")
	require.NoError(t, os.MkdirAll(filepath.Join(skill, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: pdf-tools\ndescription: PDFs.\n---\nRun scripts/extract.sh.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(skill, "scripts", "extract.sh"), []byte("#!/bin/sh\necho EXTRACTED\n"), 0o755))
	flowPath := filepath.Join(dir, "flow.yaml")
	require.NoError(t, os.WriteFile(flowPath, []byte(strings.Replace(skillsFlow, "SKILLS", "./skills", 1)), 0o644))
	replies := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(replies, []byte(`replies:
  - match: 'EXTRACTED'
    text: the script ran
  - match: 'no tool named "run_skill_script"'
    text: no script tool
  - match: 'Run scripts/extract.sh'
    tool_calls: [{name: run_skill_script, arguments: {skill_name: pdf-tools, script: extract.sh}}]
  - tool_calls: [{name: load_skill, arguments: {skill_name: pdf-tools}}]
`), 0o644))
	t.Chdir(dir)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "no script tool\n"},
		{[]string{"--allow-skill-scripts"}, "the script ran\n"},
	} {
		args := append([]string{"run", flowPath, "--llm-script", replies, "--store", filepath.Join(dir, "runs.db")}, tt.args...)
		code, out, errOut := troupe(t, "", args...)
		assert.Equal(t, exitOK, code, errOut)
		assert.Equal(t, tt.want, out)
	}
}
