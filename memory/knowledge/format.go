package knowledge

import (
	"fmt"
	"strings"
)

// Format renders search results as a block for an agent's prompt:
//
//	Reference material that may help (from your knowledge sources):
//	[1] handbook.md
//	<chunk text>
//
// It returns "" for no results, so callers can append it unconditionally.
func Format(results []Result) string {
	if len(results) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Reference material that may help (from your knowledge sources):\n")
	for i, r := range results {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, r.Chunk.Document)
		b.WriteString(strings.TrimSpace(r.Chunk.Text))
		b.WriteString("\n")
	}
	return b.String()
}
