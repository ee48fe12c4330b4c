package cel

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }

// isPySpace reports whether Python's str.isspace() holds for r: Go's
// unicode.IsSpace plus the separators U+001C..U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyStrip is Python's str.strip(): it returns s without leading and trailing
// white space, and the byte count removed from the front.
func pyStrip(s string) (string, int) {
	start := 0
	for start < len(s) {
		c := s[start]
		if c < utf8.RuneSelf {
			if c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) {
				start++
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(s[start:])
		if !isPySpace(r) {
			break
		}
		start += size
	}
	end := len(s)
	for end > start {
		c := s[end-1]
		if c < utf8.RuneSelf {
			if c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) {
				end--
				continue
			}
			break
		}
		r, size := utf8.DecodeLastRuneInString(s[start:end])
		if !isPySpace(r) {
			break
		}
		end -= size
	}
	return s[start:end], start
}

// isBlank reports whether Python's `not s.strip()` holds.
func isBlank(s string) bool {
	t, _ := pyStrip(s)
	return t == ""
}

// unwrapExpr applies CrewAI's rule for full-CEL fields: strip, remove a
// `${...}` wrapper around the whole text, strip again. It returns the
// expression and its byte offset in s.
func unwrapExpr(s string) (string, int) {
	expr, off := pyStrip(s)
	if strings.HasPrefix(expr, "${") && strings.HasSuffix(expr, "}") {
		inner, innerOff := pyStrip(expr[2 : len(expr)-1])
		return inner, off + 2 + innerOff
	}
	return expr, off
}
