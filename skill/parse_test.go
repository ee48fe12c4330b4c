package skill_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/skill"
)

// at is a problem's place and message (a part of it).
type at struct {
	line, col int
	msg       string
}

func places(probs skill.Problems) []at {
	out := make([]at, len(probs))
	for i, p := range probs {
		out[i] = at{p.Line, p.Column, p.Message}
	}
	return out
}

// checkPlaces compares problems with want: same places, each message
// containing want's.
func checkPlaces(t *testing.T, want []at, probs skill.Problems) {
	t.Helper()
	got := places(probs)
	require.Len(t, got, len(want), "%v", probs)
	for i, w := range want {
		assert.Equal(t, w.line, got[i].line, "line of %q", got[i].msg)
		assert.Equal(t, w.col, got[i].col, "column of %q", got[i].msg)
		assert.Contains(t, got[i].msg, w.msg)
	}
}

const allKeys = "allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'"

// Spec mode: every rule of the reference validator, at its place.
func TestSpecModeRules(t *testing.T) {
	long := strings.Repeat("d", 1025)
	tests := []struct {
		name, src, dir string
		want           []at
	}{
		{"valid", "---\nname: ok\ndescription: Does things.\n---\nBody", "ok", nil},
		{"no opening", "# x\n", "x", []at{{1, 1, "SKILL.md must start with YAML frontmatter (---)"}}},
		{"bom", "\ufeff---\nname: x\n---\n", "x", []at{{1, 1, "SKILL.md must start with YAML frontmatter (---)"}}},
		{"not closed", "---\nname: x\n", "x", []at{{1, 1, "SKILL.md frontmatter not properly closed with ---"}}},
		{"yaml syntax", "---\nname: x\n  bad: [\n---\n", "x", []at{{3, 1, "Invalid YAML in frontmatter: "}}},
		{"not a mapping", "---\njust text\n---\n", "x", []at{{2, 1, "SKILL.md frontmatter must be a YAML mapping"}}},
		{"empty front matter", "---\n---\n", "x", []at{{1, 4, "SKILL.md frontmatter must be a YAML mapping"}}},
		{"flow style", "---\nname: x\ndescription: d\nallowed-tools: [a, b]\n---\n", "x", []at{{4, 16, "Invalid YAML in frontmatter: flow style"}}},
		{"anchor", "---\nname: &n x\ndescription: *n\n---\n", "x", []at{{2, 7, "Invalid YAML in frontmatter: anchors and aliases"}}},
		{"tag", "---\nname: !!str x\ndescription: d\n---\n", "x", []at{{2, 7, "Invalid YAML in frontmatter: tags"}}},
		{"duplicate key", "---\nname: x\nname: x\ndescription: d\n---\n", "x", []at{{3, 1, "Invalid YAML in frontmatter: duplicate key 'name'"}}},
		{"unknown keys", "---\nname: x\nzeta: 1\ndescription: d\nalpha: 2\n---\n", "x",
			[]at{{3, 1, "Unexpected fields in frontmatter: alpha, zeta. Only ['" + allKeys + "] are allowed."}}},
		{"missing name and description", "---\nlicense: MIT\n---\n", "x", []at{
			{2, 1, "Missing required field in frontmatter: name"}, {2, 1, "Missing required field in frontmatter: description"}}},
		{"empty name", "---\nname: ''\ndescription: d\n---\n", "x", []at{{2, 7, "Field 'name' must be a non-empty string"}}},
		{"name too long", "---\nname: " + strings.Repeat("n", 65) + "\ndescription: d\n---\n", strings.Repeat("n", 65),
			[]at{{2, 7, "exceeds 64 character limit (65 chars)"}}},
		{"uppercase", "---\nname: Abc\ndescription: d\n---\n", "Abc", []at{{2, 7, "Skill name 'Abc' must be lowercase"}}},
		{"leading hyphen", "---\nname: -a\ndescription: d\n---\n", "-a", []at{{2, 7, "Skill name cannot start or end with a hyphen"}}},
		{"consecutive hyphens", "---\nname: a--b\ndescription: d\n---\n", "a--b", []at{{2, 7, "Skill name cannot contain consecutive hyphens"}}},
		{"invalid characters", "---\nname: a.b\ndescription: d\n---\n", "a.b", []at{{2, 7, "Skill name 'a.b' contains invalid characters. Only letters, digits, and hyphens are allowed."}}},
		{"non-ascii", "---\nname: café\ndescription: d\n---\n", "café", []at{{2, 7, "outside a-z and 0-9"}}},
		{"nfkc", "---\nname: ｘ\ndescription: d\n---\n", "x", nil},
		{"folder", "---\nname: x\ndescription: d\n---\n", "y", []at{{2, 7, "Directory name 'y' must match skill name 'x'"}}},
		{"no folder check", "---\nname: x\ndescription: d\n---\n", "", nil},
		{"blank description", "---\nname: x\ndescription: '  '\n---\n", "x", []at{{3, 14, "Field 'description' must be a non-empty string"}}},
		{"description too long", "---\nname: x\ndescription: " + long + "\n---\n", "x", []at{{3, 14, "Description exceeds 1024 character limit (1025 chars)"}}},
		{"compatibility not text", "---\nname: x\ndescription: d\ncompatibility:\n  a: b\n---\n", "x", []at{{5, 3, "Field 'compatibility' must be a string"}}},
		{"compatibility too long", "---\nname: x\ndescription: d\ncompatibility: " + strings.Repeat("c", 501) + "\n---\n", "x",
			[]at{{4, 16, "Compatibility exceeds 500 character limit (501 chars)"}}},
		{"metadata not a mapping", "---\nname: x\ndescription: d\nmetadata: v1\n---\n", "x", []at{{4, 11, "Field 'metadata' must be a mapping of string keys to string values"}}},
		{"metadata without a value", "---\nname: x\ndescription: d\nmetadata:\n---\n", "x", nil},
		{"metadata values are text", "---\nname: x\ndescription: d\nmetadata:\n  version: 1.0\n---\n", "x", nil},
		{"allowed-tools pattern", "---\nname: x\ndescription: d\nallowed-tools: Read Bash(git:*)\n---\n", "x",
			[]at{{4, 16, "allowed-tools entry 'Bash(git:*)' is a pattern, which Troupe does not support"}}},
		{"every field problem at once", "---\nname: Bad_Name\ndescription: ''\nextra: 1\n---\n", "x", []at{
			{4, 1, "Unexpected fields in frontmatter: extra."},
			{2, 7, "Skill name 'Bad_Name' must be lowercase"},
			{2, 7, "contains invalid characters"},
			{2, 7, "Directory name 'x' must match skill name 'Bad_Name'"},
			{3, 14, "Field 'description' must be a non-empty string"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, probs := skill.Parse([]byte(tt.src), "SKILL.md", tt.dir, skill.Spec)
			checkPlaces(t, tt.want, probs)
		})
	}
}

// Spec mode warns about a SKILL.md longer than the specification
// recommends, without making it invalid.
func TestSpecModeWarnsLongFile(t *testing.T) {
	src := "---\nname: x\ndescription: d\n---\n" + strings.Repeat("line\n", 600)
	_, probs := skill.Parse([]byte(src), "SKILL.md", "x", skill.Spec)
	require.Len(t, probs, 1)
	assert.Equal(t, skill.Warning, probs[0].Severity)
	assert.Contains(t, probs[0].Message, "SKILL.md has 604 lines")
}

// CrewAI mode: CrewAI's parse texts verbatim, PyYAML's types, pydantic's
// field rules (in its words) and the folder's name, each at its place.
func TestCrewAIModeRules(t *testing.T) {
	tests := []struct {
		name, src, dir string
		want           []at
	}{
		{"valid", "---\nname: ok\ndescription: Does things.\nunknown: ignored\n---\nBody", "ok", nil},
		{"no opening", "# x\n", "x", []at{{1, 1, "SKILL.md must start with '---' frontmatter delimiter"}}},
		{"not closed", "---\nname: x\n---- not a delimiter\n", "x", []at{{1, 1, "SKILL.md missing closing '---' frontmatter delimiter"}}},
		{"closing with trailing blanks", "---\nname: x\ndescription: d\n--- \t\nBody", "x", nil},
		{"yaml syntax", "---\nname: x\n  bad: [\n---\n", "x", []at{{3, 1, "Invalid YAML in frontmatter: "}}},
		{"not a mapping", "---\n- a\n---\n", "x", []at{{2, 1, "Frontmatter must be a YAML mapping"}}},
		{"empty front matter", "---\n\n---\nBody", "x", []at{{2, 1, "Frontmatter must be a YAML mapping"}}},
		{"flow style is fine", "---\nname: x\ndescription: d\nmetadata: {a: b}\nallowed-tools: [Read]\n---\n", "x", nil},
		{"missing fields", "---\nlicense: MIT\n---\n", "x", []at{{2, 1, "name: Field required [type=missing]"}, {2, 1, "description: Field required [type=missing]"}}},
		{"boolean name", "---\nname: yes\ndescription: d\n---\n", "x", []at{{2, 7, "name: Input should be a valid string [type=string_type]; got a boolean (quote the value to make it text)"}}},
		{"number description", "---\nname: x\ndescription: 12\n---\n", "x", []at{{3, 14, "description: Input should be a valid string [type=string_type]; got an integer"}}},
		{"null name", "---\nname:\ndescription: d\n---\n", "x", []at{{2, 6, "name: Input should be a valid string"}}},
		{"empty description", "---\nname: x\ndescription: ''\n---\n", "x", []at{{3, 14, "description: String should have at least 1 character [type=string_too_short]"}}},
		{"long name", "---\nname: " + strings.Repeat("n", 65) + "\ndescription: d\n---\n", "x", []at{{2, 7, "name: String should have at most 64 characters [type=string_too_long]"}}},
		{"name pattern", "---\nname: My-Skill\ndescription: d\n---\n", "My-Skill", []at{{2, 7, "name: String should match pattern '^[a-z0-9]+(?:-[a-z0-9]+)*$' [type=string_pattern_mismatch]"}}},
		{"unicode name", "---\nname: навык\ndescription: d\n---\n", "навык", []at{{2, 7, "string_pattern_mismatch"}}},
		{"folder", "---\nname: x\ndescription: d\n---\n", "y", []at{{2, 7, "Directory name 'y' does not match skill name 'x'"}}},
		{"folder compared as written", "---\nname: x\ndescription: d\n---\n", "ｘ", []at{{2, 7, "Directory name 'ｘ' does not match skill name 'x'"}}},
		{"license not text", "---\nname: x\ndescription: d\nlicense: 2\n---\n", "x", []at{{4, 10, "license: Input should be a valid string"}}},
		{"null license", "---\nname: x\ndescription: d\nlicense:\n---\n", "x", nil},
		{"compatibility too long", "---\nname: x\ndescription: d\ncompatibility: " + strings.Repeat("c", 501) + "\n---\n", "x",
			[]at{{4, 16, "compatibility: String should have at most 500 characters"}}},
		{"unquoted version", "---\nname: x\ndescription: d\nmetadata:\n  version: 1.0\n  owner: me\n---\n", "x",
			[]at{{5, 12, "metadata.version: Input should be a valid string [type=string_type]; got a number (quote the value to make it text)"}}},
		{"metadata not a mapping", "---\nname: x\ndescription: d\nmetadata: [a]\n---\n", "x", []at{{4, 11, "metadata: Input should be a valid dictionary [type=dict_type]; got a list"}}},
		{"metadata key not text", "---\nname: x\ndescription: d\nmetadata:\n  1: a\n---\n", "x", []at{{5, 3, "metadata.1.[key]: Input should be a valid string"}}},
		{"allowed-tools not a list", "---\nname: x\ndescription: d\nallowed-tools:\n  a: b\n---\n", "x", []at{{5, 3, "allowed-tools: Input should be a valid list [type=list_type]; got a mapping"}}},
		{"allowed-tools item", "---\nname: x\ndescription: d\nallowed-tools:\n  - Read\n  - 3\n---\n", "x", []at{{6, 5, "allowed-tools.1: Input should be a valid string"}}},
		{"allowed_tools spelling", "---\nname: x\ndescription: d\nallowed_tools: 5\n---\n", "x", []at{{4, 16, "allowed_tools: Input should be a valid list"}}},
		{"crlf", "---\r\nname: x\r\ndescription: d\r\n---\r\nBody", "x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, probs := skill.Parse([]byte(tt.src), "SKILL.md", tt.dir, skill.CrewAI)
			checkPlaces(t, tt.want, probs)
		})
	}
}

// CrewAI mode reads the fields as CrewAI keeps them.
func TestCrewAIModeFields(t *testing.T) {
	src := "---\nname: pdf\ndescription: PDFs.\nlicense: MIT\ncompatibility: linux\nmetadata:\n  version: \"2\"\nallowed_tools: Read  Grep\n---\n\n# Steps\n\nDo it.\n\n"
	s, probs := skill.Parse([]byte(src), "SKILL.md", "pdf", skill.CrewAI)
	require.Empty(t, probs)
	assert.Equal(t, &skill.Skill{Name: "pdf", Description: "PDFs.", License: "MIT", Compatibility: "linux",
		Metadata: map[string]string{"version": "2"}, AllowedTools: []string{"Read", "Grep"}, Body: "# Steps\n\nDo it."}, s)
}

// A body over 50,000 characters is a warning in CrewAI mode.
func TestCrewAIModeWarnsLongBody(t *testing.T) {
	src := "---\nname: x\ndescription: d\n---\n" + strings.Repeat("b", skill.MaxBodyChars+1)
	s, probs := skill.Parse([]byte(src), "SKILL.md", "x", skill.CrewAI)
	require.NotNil(t, s)
	require.Len(t, probs, 1)
	assert.Equal(t, skill.Warning, probs[0].Severity)
	assert.False(t, probs.HasErrors())
	assert.Contains(t, probs[0].Message, "50001 characters")
}

// Load takes a folder or its SKILL.md; CrewAI mode wants SKILL.md exactly.
func TestLoadPaths(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "lower", "skill.md", "---\nname: lower\ndescription: d\n---\n")
	_, probs := skill.Load(dir+"/lower", skill.Spec)
	assert.Empty(t, probs)
	_, probs = skill.Load(dir+"/lower", skill.CrewAI)
	require.Len(t, probs, 1)
	assert.Equal(t, "Missing required file: SKILL.md", probs[0].Message)

	writeSkill(t, dir, "ok", "SKILL.md", "---\nname: ok\ndescription: d\n---\nBody")
	s, probs := skill.Load(dir+"/ok/SKILL.md", skill.CrewAI)
	require.Empty(t, probs)
	assert.Equal(t, dir+"/ok", s.Dir)
	assert.Equal(t, dir+"/ok/SKILL.md", s.File)
}
