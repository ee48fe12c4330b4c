package skill

import (
	"sort"
	"unicode/utf8"
)

// source is a text being parsed, with the offsets of its line starts, so
// that problems can say where they are.
type source struct {
	file  string
	text  string
	lines []int
}

func newSource(file, text string) *source {
	s := &source{file: file, text: text, lines: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	return s
}

// pos returns the 1-based line and column (in characters) of byte offset
// off.
func (s *source) pos(off int) (line, col int) {
	off = max(0, min(off, len(s.text)))
	i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	return i + 1, utf8.RuneCountInString(s.text[s.lines[i]:off]) + 1
}

// offset returns the byte offset of a 1-based line and column (in
// characters), clamped to the text.
func (s *source) offset(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(s.lines) {
		return len(s.text)
	}
	off := s.lines[line-1]
	for ; col > 1 && off < len(s.text) && s.text[off] != '\n'; col-- {
		_, size := utf8.DecodeRuneInString(s.text[off:])
		off += size
	}
	return off
}

// at is a problem at byte offset off.
func (s *source) at(off int, sev Severity, msg string) Problem {
	line, col := s.pos(off)
	return Problem{File: s.file, Line: line, Column: col, Offset: off, Severity: sev, Message: msg}
}

// nowhere is a problem without a place in the text.
func (s *source) nowhere(sev Severity, msg string) Problem {
	return Problem{File: s.file, Offset: -1, Severity: sev, Message: msg}
}
