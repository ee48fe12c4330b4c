package flow

import (
	"bytes"
	"errors"
	"io"
	"sort"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// syntaxPos finds where a document that does not parse goes wrong. The
// YAML parser's messages carry a line number that is sometimes 0-based and
// sometimes missing, and never a column. So: when closing the flow
// collections and the quote left open at the end makes the text parse,
// the innermost unclosed one is the problem; otherwise it is where the shortest
// failing prefix ends (prefixes are completed by closeFlow, so that a JSON
// document is not wrong merely for being cut short), searched by lines,
// then by characters within the line.
func syntaxPos(data []byte) (Pos, bool) {
	if parses(data) {
		return Pos{}, false
	}
	if closed, open := closeFlow(data); open >= 0 && parses(closed) {
		return offsetPos(data, open), true
	}
	var starts []int
	starts = append(starts, 0)
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	end := func(line int) int { // byte end of the first line lines
		if line < len(starts) {
			return starts[line]
		}
		return len(data)
	}
	fails := func(n int) bool {
		closed, _ := closeFlow(data[:n])
		return !parses(closed)
	}
	line := sort.Search(len(starts), func(n int) bool { return fails(end(n + 1)) }) + 1
	if line > len(starts) {
		return Pos{}, false
	}
	from, to := starts[line-1], end(line)
	at := sort.Search(to-from, func(n int) bool { return fails(from + n + 1) })
	return offsetPos(data, from+min(at, to-from)), true
}

// offsetPos converts a byte offset into a line and a column in runes.
func offsetPos(data []byte, off int) Pos {
	off = min(off, len(data))
	line := bytes.Count(data[:off], []byte("\n")) + 1
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return Pos{line, utf8.RuneCount(data[start:off]) + 1}
}

// closeFlow completes a cut text: it ends an open quoted scalar and closes
// the flow collections ([...], {...}) left open. It also returns the offset
// of the innermost unclosed quote or bracket, or -1. Quotes are recognised only
// where a scalar can start, so the apostrophe in a plain "it's" is text.
func closeFlow(data []byte) ([]byte, int) {
	var open []int
	var quote byte
	quoteAt := 0
	escaped := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case quote != 0:
			switch {
			case escaped:
				escaped = false
			case quote == '"' && c == '\\':
				escaped = true
			case c == quote:
				quote = 0
			}
		case (c == '"' || c == '\'') && (i == 0 || bytes.IndexByte([]byte(" \t\n[{,"), data[i-1]) >= 0):
			quote, quoteAt = c, i
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			// A comment runs to the end of the line.
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			open = append(open, i)
		case (c == ']' || c == '}') && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	if len(open) == 0 && quote == 0 {
		return data, -1
	}
	out := make([]byte, 0, len(data)+len(open)+2)
	out = append(out, data...)
	if escaped {
		out = append(out, '\\')
	}
	if quote != 0 {
		out = append(out, quote)
	}
	for i := len(open) - 1; i >= 0; i-- {
		if data[open[i]] == '[' {
			out = append(out, ']')
		} else {
			out = append(out, '}')
		}
	}
	innermost := quoteAt
	if quote == 0 {
		innermost = open[len(open)-1]
	}
	return out, innermost
}

func parses(data []byte) (ok bool) {
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
