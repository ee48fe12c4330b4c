package knowledge

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Default chunking, CrewAI's: windows of 4000 characters overlapping by 200.
const (
	DefaultChunkSize    = 4000
	DefaultChunkOverlap = 200
)

// Split cuts text into windows of size characters (runes, never bytes, so
// no character is cut in two), each starting size-overlap characters after
// the previous one; the last window ends with the text. Windows holding
// only white space are dropped.
func Split(text string, size, overlap int) ([]string, error) {
	if size <= 0 || overlap < 0 || overlap >= size {
		return nil, fmt.Errorf("knowledge: chunk size %d and overlap %d: want size > 0 and 0 <= overlap < size", size, overlap)
	}
	var out []string
	for start := 0; start < len(text); {
		end := advance(text, start, size)
		if w := text[start:end]; strings.TrimSpace(w) != "" {
			out = append(out, w)
		}
		if end == len(text) {
			break
		}
		start = advance(text, start, size-overlap)
	}
	return out, nil
}

// advance returns the byte offset n runes after from, or len(s).
func advance(s string, from, n int) int {
	i := from
	for ; n > 0 && i < len(s); n-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}
