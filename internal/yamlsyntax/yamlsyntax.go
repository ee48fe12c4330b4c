// Package yamlsyntax finds where text that does not parse as YAML goes
// wrong. The YAML parser's messages carry a line that is sometimes off by
// one or missing, and never a column; [Locate] gives both, so that a
// syntax error in a flow file or a fake script points at its place.
//
// Start with [Locate]. The package imports only the YAML parser; it must
// not import anything of Troupe.
package yamlsyntax

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"sort"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Locate returns the line and column (1-based, in runes) where data stops
// being YAML, and false when data parses as one document (or none) or no
// place can be found (only the whole text fails, as with a second
// document).
//
// The place is found by parsing prefixes: the end of the shortest one that
// fails, searched by whole lines, then by characters within the line. Each
// prefix is completed first (an open quote and open flow collections
// closed), so that it does not fail merely for being cut short; within a
// line, a prefix also passes when a colon completes it, since a block
// mapping's key is not valid until its colon. When only an unclosed quote
// or bracket is wrong, that is where the problem is.
func Locate(data []byte) (line, column int, ok bool) {
	if Parses(data) {
		return 0, 0, false
	}
	var ends []int // ends[i] is the offset after line i+1
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] < len(data) {
		ends = append(ends, len(data))
	}
	l := sort.Search(len(ends), func(i int) bool {
		text, _ := complete(data[:ends[i]])
		return !Parses(text)
	})
	if l == len(ends) {
		if _, open := complete(data); open >= 0 {
			line, column = offsetPos(data, open)
			return line, column, true
		}
		return 0, 0, false
	}
	from := 0
	if l > 0 {
		from = ends[l-1]
	}
	to := ends[l]
	at := sort.Search(to-from, func(c int) bool {
		text, _ := complete(data[:from+c+1])
		return !Parses(text) && !Parses(append(text[:len(text):len(text)], ':'))
	})
	if at == to-from && at > 0 && data[to-1] == '\n' {
		at-- // the end of the line
	}
	line, column = offsetPos(data, from+at)
	return line, column, true
}

var linePrefix = regexp.MustCompile(`^(?:yaml: )?(?:line \d+: )?`)

// Message is the parser's error message without its "yaml: " prefix and
// its unreliable line number.
func Message(err error) string {
	return linePrefix.ReplaceAllString(err.Error(), "")
}

// offsetPos converts a byte offset into a line and a column in runes.
func offsetPos(data []byte, off int) (line, column int) {
	off = min(off, len(data))
	line = bytes.Count(data[:off], []byte("\n")) + 1
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, utf8.RuneCount(data[start:off]) + 1
}

// complete closes, at the end of a cut text, the quoted scalar and the flow
// collections ([...], {...}) left open, and returns the offset of the
// innermost of them, or -1. Quotes and brackets count only where a value
// can start, so the apostrophe in a plain "it's" is text.
func complete(data []byte) ([]byte, int) {
	var (
		open    []int // offsets of the open brackets, innermost last
		quote   byte
		quoteAt int
		escaped bool
	)
	for i := 0; i < len(data); i++ {
		c := data[i]
		if quote != 0 {
			switch {
			case escaped:
				escaped = false
			case quote == '"' && c == '\\':
				escaped = true
			case quote == '\'' && c == '\'' && i+1 < len(data) && data[i+1] == '\'':
				i++ // '' is a quote inside single quotes
			case c == quote:
				quote = 0
			}
			continue
		}
		starts := i == 0 || bytes.IndexByte([]byte(" \t\r\n[{,"), data[i-1]) >= 0
		switch {
		case c == '#' && starts:
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case (c == '"' || c == '\'') && starts:
			quote, quoteAt = c, i
		case (c == '[' || c == '{') && starts:
			open = append(open, i)
		case (c == ']' || c == '}') && len(open) > 0 && closer(data[open[len(open)-1]]) == c:
			open = open[:len(open)-1]
		}
	}
	if quote == 0 && len(open) == 0 {
		return data, -1
	}
	out := make([]byte, 0, len(data)+len(open)+2)
	out = append(out, data...)
	innermost := quoteAt
	if escaped {
		out = append(out, '\\')
	}
	if quote != 0 {
		out = append(out, quote)
	} else {
		innermost = open[len(open)-1]
	}
	for i := len(open) - 1; i >= 0; i-- {
		out = append(out, closer(data[open[i]]))
	}
	return out, innermost
}

// closer returns the bracket that closes the flow collection opened by b.
func closer(b byte) byte {
	if b == '[' {
		return ']'
	}
	return '}'
}

// Parses reports whether data is one YAML document (or none). A panic of
// the parser counts as a failure.
func Parses(data []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return errors.Is(err, io.EOF)
	}
	var next yaml.Node
	return errors.Is(dec.Decode(&next), io.EOF)
}
