package memory

import (
	"fmt"
	"strings"
)

// FormatMatches renders recall results as a block for an agent's prompt:
//
//	Things you remember that may help (most relevant first):
//	- Alice prefers tea. [preferences; relevance 0.87]
//
// It returns "" for no matches, so callers can append it unconditionally.
func FormatMatches(matches []Match) string {
	if len(matches) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Things you remember that may help (most relevant first):\n")
	for _, m := range matches {
		b.WriteString("- ")
		b.WriteString(strings.ReplaceAll(strings.TrimSpace(m.Record.Content), "\n", "\n  "))
		b.WriteString(" [")
		if len(m.Record.Categories) > 0 {
			b.WriteString(strings.Join(m.Record.Categories, ", "))
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "relevance %.2f]\n", m.Score)
	}
	return b.String()
}
