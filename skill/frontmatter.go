package skill

import (
	"regexp"
	"strings"
	"unicode"
)

// closingLine finds the line that ends the front matter: "---" and nothing
// but spaces and tabs after it, as CrewAI looks for it. The reference
// validator stops at the first "---" anywhere, even inside a value; Troupe
// follows the specification and CrewAI, which mean a line.
var closingLine = regexp.MustCompile(`\n---[ \t]*(?:\n|$)`)

// front is a SKILL.md split at its delimiters.
type front struct {
	yaml string // the front matter, trimmed
	at   int    // the byte offset of yaml in the text
	body string // the Markdown after the closing line, trimmed
}

// parse-level messages, by mode.
var (
	msgNoStart = map[Mode]string{
		Spec:   "SKILL.md must start with YAML frontmatter (---)",
		CrewAI: "SKILL.md must start with '---' frontmatter delimiter",
	}
	msgNotClosed = map[Mode]string{
		Spec:   "SKILL.md frontmatter not properly closed with ---",
		CrewAI: "SKILL.md missing closing '---' frontmatter delimiter",
	}
	msgNotMapping = map[Mode]string{
		Spec:   "SKILL.md frontmatter must be a YAML mapping",
		CrewAI: "Frontmatter must be a YAML mapping",
	}
)

// splitFront finds the front matter and the body of src's text.
func splitFront(src *source, mode Mode) (front, *Problem) {
	text := src.text
	if !strings.HasPrefix(text, "---") {
		p := src.at(0, Error, msgNoStart[mode])
		return front{}, &p
	}
	loc := closingLine.FindStringIndex(text[3:])
	if loc == nil {
		p := src.at(0, Error, msgNotClosed[mode])
		return front{}, &p
	}
	start, end := 3+loc[0], 3+loc[1]
	raw := text[3:start]
	trimmed := strings.TrimLeftFunc(raw, unicode.IsSpace)
	return front{
		yaml: strings.TrimRightFunc(trimmed, unicode.IsSpace),
		at:   3 + len(raw) - len(trimmed),
		body: strings.TrimSpace(text[end:]),
	}, nil
}

// normalizeNewlines turns CRLF and CR line breaks into LF, as Python reads
// text files.
func normalizeNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
