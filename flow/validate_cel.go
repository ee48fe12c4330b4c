package flow

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/troupe-dev/troupe/cel"
)

var (
	baseRoots = []string{"outputs", "state"}
	stepRoots = []string{"item", "outputs", "state"}
)

// checkExpr checks a full-CEL field.
func (d *decoder) checkExpr(path, expr string, roots []string) {
	for _, p := range cel.CheckExpr(path, expr, roots) {
		d.celProblem(path, p)
	}
}

// checkTemplate checks one ${...} template string.
func (d *decoder) checkTemplate(path, s string, roots []string) {
	if !strings.Contains(s, "${") {
		return
	}
	for _, p := range cel.CheckTemplate(path, s, roots) {
		d.celProblem(path, p)
	}
}

// checkData checks every string inside JSON data as a template.
func (d *decoder) checkData(path string, v any, roots []string) {
	switch v := v.(type) {
	case string:
		d.checkTemplate(path, v, roots)
	case map[string]any:
		for _, k := range sortedKeys(v) {
			d.checkData(join(path, k), v[k], roots)
		}
	case []any:
		for i, it := range v {
			d.checkData(index(path, i), it, roots)
		}
	}
}

// celProblem reports a CEL problem at its place inside the string when the
// source allows it, else at the field.
func (d *decoder) celProblem(path string, p cel.Problem) {
	pos, ok := d.locate(d.scalars[path], p.Offset)
	if !ok {
		pos = d.pos.at(path)
	}
	d.diags = append(d.diags, Diagnostic{
		File: d.file, Line: pos.Line, Column: pos.Column, Path: path,
		Severity: SeverityError, Code: celCode(p.Code), Message: p.Message,
	})
}

// locate finds the line and column of byte offset off inside the string
// scalar n. It succeeds when the text up to off appears verbatim in the
// source: on one line for plain and quoted scalars (escapes and folding
// stop it), line by line for literal blocks.
func (d *decoder) locate(n *node, off int) (Pos, bool) {
	if n == nil || d.src == nil {
		return Pos{}, false
	}
	s, _ := n.value.(string)
	if off < 0 || off > len(s) {
		return Pos{}, false
	}
	prefix := s[:off]
	if n.style != blockStyle {
		if strings.Contains(prefix, "\n") {
			return n.pos(), true
		}
		q := 0
		if n.style != plainStyle {
			q = 1
		}
		line, ok := d.line(n.line)
		if !ok {
			return n.pos(), true
		}
		start, ok := runeIndex(line, n.column-1+q)
		if !ok || !bytes.HasPrefix(line[start:], []byte(prefix)) {
			return n.pos(), true
		}
		return Pos{n.line, n.column + q + utf8.RuneCountInString(prefix)}, true
	}
	// A literal block starts on the line after its indicator; each text
	// line is the source line less its indentation.
	k := strings.Count(prefix, "\n")
	within := prefix[strings.LastIndexByte(prefix, '\n')+1:]
	textLine, _, _ := strings.Cut(s[len(prefix)-len(within):], "\n")
	line, ok := d.line(n.line + 1 + k)
	if !ok || !bytes.HasSuffix(line, []byte(textLine)) {
		return n.pos(), true
	}
	indent := line[:len(line)-len(textLine)]
	if len(bytes.TrimLeft(indent, " ")) != 0 {
		return n.pos(), true
	}
	return Pos{n.line + 1 + k, len(indent) + 1 + utf8.RuneCountInString(within)}, true
}

// line returns source line n (1-based) without its line break.
func (r *reporter) line(n int) ([]byte, bool) {
	if r.lines == nil {
		r.lines = append(r.lines, 0)
		for i, c := range r.src {
			if c == '\n' {
				r.lines = append(r.lines, i+1)
			}
		}
	}
	if n < 1 || n > len(r.lines) {
		return nil, false
	}
	start, end := r.lines[n-1], len(r.src)
	if n < len(r.lines) {
		end = r.lines[n] - 1
	}
	return bytes.TrimSuffix(r.src[start:end], []byte("\r")), true
}

// runeIndex returns the byte index of the rune at index i in b.
func runeIndex(b []byte, i int) (int, bool) {
	at := 0
	for ; i > 0; i-- {
		if at >= len(b) {
			return 0, false
		}
		_, size := utf8.DecodeRune(b[at:])
		at += size
	}
	return at, at <= len(b)
}

func celCode(c string) string {
	if c == "" {
		return "cel"
	}
	return strings.ReplaceAll(c, "-", "_")
}
