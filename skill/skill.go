package skill

import "strings"

// FileName is the name of the file that makes a folder a skill.
const FileName = "SKILL.md"

// Mode selects the rules a SKILL.md is checked against.
type Mode int

const (
	// Spec applies every rule of the Agent Skills specification as its
	// reference validator (skills-ref) checks it, with its messages: only
	// the six known front matter keys, YAML without flow style, anchors or
	// tags (strictyaml), every scalar read as text, the name's limits and
	// its match with the folder's name after NFKC normalization. Troupe is
	// stricter in two places the specification is: names are ASCII
	// (a-z, 0-9, -) unless [UnicodeNames] is set, and metadata must map
	// strings to strings. `troupe skills validate` uses it.
	Spec Mode = iota
	// CrewAI applies the rules CrewAI agents load skills with: PyYAML's
	// YAML 1.1 types (so `name: yes` is not a string), unknown keys
	// ignored, the name pattern ^[a-z0-9]+(?:-[a-z0-9]+)*$, and the folder's
	// name equal to the skill's. Agents use it at run time.
	CrewAI
)

// A Skill is a parsed SKILL.md.
type Skill struct {
	Name          string
	Description   string
	License       string
	Compatibility string
	// Metadata maps the metadata block's keys to their values.
	Metadata map[string]string
	// AllowedTools lists the allowed-tools entries: the string split on
	// white space, or the list as written. Nil when the key is absent.
	AllowedTools []string
	// Body is the Markdown after the front matter, trimmed.
	Body string
	// Dir is the skill's folder, made absolute (symbolic links are
	// resolved only when its files are read); "" for an inline skill.
	Dir string
	// File is the path of the SKILL.md; "" for an inline skill.
	File string
}

// Inline reports whether the skill came from SKILL.md text written inline
// (in a definition's skills list) rather than from a folder.
func (s *Skill) Inline() bool { return s.Dir == "" }

// Path is the skill's folder as skill events report it: "." for an inline
// skill, as CrewAI reports it.
func (s *Skill) Path() string {
	if s.Dir == "" {
		return "."
	}
	return s.Dir
}

// ToolPattern reports whether an allowed-tools entry is a pattern such as
// Bash(git:*) rather than a plain tool name. Troupe matches plain names
// only; a pattern allows no tool.
func ToolPattern(entry string) bool {
	return strings.Contains(entry, "(") || strings.Contains(entry, ")")
}
