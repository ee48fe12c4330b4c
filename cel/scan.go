package cel

import (
	"strconv"
	"strings"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// segment is one part of a template: literal text, or the stripped source of
// a ${...} expression.
type segment struct {
	text   string
	expr   bool
	offset int // byte offset of text in the template
}

// scanTemplate splits s into literal and expression segments the way CrewAI
// does (spec 3.7): find "${", then lex the rest with CEL's token rules,
// counting { and } from depth 1, until the } that brings the depth to 0.
// Braces inside string literals and map literals therefore do not close the
// expression. A lone $ is literal, and there is no backslash escape.
//
// A string with no expression yields one literal segment.
func scanTemplate(s string) ([]segment, *CompileError) {
	var segs []segment
	index := 0
	for {
		rel := strings.Index(s[index:], "${")
		if rel < 0 {
			break
		}
		start := index + rel
		if start > index {
			segs = append(segs, segment{text: s[index:start], offset: index})
		}
		end, err := markerEnd(s, start)
		if err != nil {
			return nil, err
		}
		src, lead := pyStrip(s[start+2 : end])
		if src == "" {
			return nil, &CompileError{
				Code:    CodeTemplateEmpty,
				Message: "empty CEL expression in " + pyjson.QuoteRepr(s),
				Offset:  start,
			}
		}
		segs = append(segs, segment{text: src, expr: true, offset: start + 2 + lead})
		index = end + 1
	}
	if index < len(s) || len(segs) == 0 {
		segs = append(segs, segment{text: s[index:], offset: index})
	}
	return segs, nil
}

// markerEnd returns the index of the } closing the ${ at start.
func markerEnd(s string, start int) (int, *CompileError) {
	from := start + 2
	depth := 1
	for i := from; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '{':
			depth++
			i++
		case c == '}':
			depth--
			if depth == 0 {
				return i, nil
			}
			i++
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			nl := strings.IndexByte(s[i:], '\n')
			if nl < 0 {
				i = len(s)
			} else {
				i += nl
			}
		case c == '\'' || c == '"':
			end, ok := stringEnd(s, i, false)
			if !ok {
				return 0, lexError(s, from, i)
			}
			i = end
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			if j < len(s) && (s[j] == '\'' || s[j] == '"') && isStringPrefix(s[i:j]) {
				end, ok := stringEnd(s, j, strings.ContainsAny(s[i:j], "rR"))
				if !ok {
					return 0, lexError(s, from, j)
				}
				j = end
			}
			i = j
		case c >= '0' && c <= '9':
			i++
			for i < len(s) && (isIdentPart(s[i]) || s[i] == '.') {
				i++
			}
		case c == '`':
			// cel-go's quoted field names: `a-b`.
			end := strings.IndexAny(s[i+1:], "`\n")
			if end < 0 || s[i+1+end] != '`' {
				return 0, lexError(s, from, i)
			}
			i += end + 2
		case c == '=' || c == '&' || c == '|':
			// Only ==, && and || exist.
			if i+1 >= len(s) || s[i+1] != c {
				return 0, lexError(s, from, i)
			}
			i += 2
		case (c == '!' || c == '<' || c == '>') && i+1 < len(s) && s[i+1] == '=':
			i += 2
		case strings.IndexByte("+-*/%!<>?:.,[]()", c) >= 0:
			i++
		default:
			return 0, lexError(s, from, i)
		}
	}
	return 0, &CompileError{
		Code:    CodeTemplateUnterminated,
		Message: "unterminated ${...} expression in " + pyjson.QuoteRepr(s),
		Offset:  start,
	}
}

// stringEnd returns the index just after the string literal whose opening
// quote is at q, or false when it is not closed. Escapes are skipped unless
// raw; single-quoted forms end at a newline.
func stringEnd(s string, q int, raw bool) (int, bool) {
	quote := s[q]
	if strings.HasPrefix(s[q:], string([]byte{quote, quote, quote})) {
		closing := string([]byte{quote, quote, quote})
		for i := q + 3; i < len(s); {
			if !raw && s[i] == '\\' {
				i += 2
				continue
			}
			if strings.HasPrefix(s[i:], closing) {
				return i + 3, true
			}
			i++
		}
		return 0, false
	}
	for i := q + 1; i < len(s); {
		switch s[i] {
		case '\\':
			if !raw {
				i += 2
				continue
			}
		case '\n':
			return 0, false
		case quote:
			return i + 1, true
		}
		i++
	}
	return 0, false
}

// isStringPrefix reports whether p is a string literal prefix: r, b, or both.
func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "b", "rb", "br":
		return true
	}
	return false
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9')
}

// lexError reports a character no CEL token starts with, in the words of the
// lexer CrewAI uses (lark), with the line and column counted from the start
// of the lexed text.
func lexError(s string, from, at int) *CompileError {
	r, _ := decodeRune(s[at:])
	line, col := 1, 1
	for _, x := range s[from:at] {
		if x == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	detail := "No terminal matches '" + string(r) + "' in the current parser context, at line " +
		strconv.Itoa(line) + " col " + strconv.Itoa(col)
	return &CompileError{
		Code:    CodeTemplateInvalid,
		Message: "unterminated or invalid ${...} expression in " + pyjson.QuoteRepr(s) + ": " + detail,
		Offset:  at,
	}
}
