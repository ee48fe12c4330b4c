package flow

import (
	"bytes"
	"errors"
	"io"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// node is a parsed YAML value with its position, its scalars resolved with
// PyYAML's YAML 1.1 rules (so `yes` is a boolean and `2024-01-01` a date),
// which is how CrewAI reads both YAML and JSON definitions.
type node struct {
	kind   nodeKind
	line   int
	column int
	// scalar: nil, bool, int64, float64, string or timestamp.
	value any
	// style is how a scalar was written; it locates offsets inside strings.
	style scalarStyle
	// mapping: keys and values in source order, duplicates removed (the
	// last value wins, at the first key's place).
	keys   []string
	keyPos []Pos
	vals   []*node
	// sequence
	items []*node
}

type nodeKind int

const (
	scalarNode nodeKind = iota
	mapNode
	seqNode
)

// scalarStyle is how a scalar was written in the source.
type scalarStyle uint8

const (
	plainStyle scalarStyle = iota
	singleQuoted
	doubleQuoted
	blockStyle
)

// timestamp is an unquoted YAML date or date-time. It is not valid flow
// data; the loader reports it where data is expected.
type timestamp string

func (n *node) pos() Pos { return Pos{n.line, n.column} }

// get returns the value of key in a mapping node.
func (n *node) get(key string) (*node, bool) {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i], true
		}
	}
	return nil, false
}

func (n *node) isNull() bool { return n.kind == scalarNode && n.value == nil }

// describe names the node's type the way pydantic does in messages.
func (n *node) describe() string {
	switch n.kind {
	case mapNode:
		return "mapping"
	case seqNode:
		return "list"
	}
	switch n.value.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		return "number"
	case timestamp:
		return "date (quote it to make it a string)"
	}
	return "string"
}

// data converts the node to JSON data. Timestamps become their text; callers
// that need to reject them use dataCheck first.
func (n *node) data() any {
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.vals[i].data()
		}
		return m
	case seqNode:
		l := make([]any, len(n.items))
		for i, it := range n.items {
			l[i] = it.data()
		}
		return l
	}
	if t, ok := n.value.(timestamp); ok {
		return string(t)
	}
	return n.value
}

// maxAliasNodes bounds the nodes that alias expansion may add, so that a
// hostile document ("billion laughs") cannot exhaust time or memory. Nodes
// written out in the text need no bound: the text already holds them.
const maxAliasNodes = 1 << 17

var errTooLarge = errors.New("document expands to too many nodes (alias expansion)")

// parseNode parses one YAML (or JSON) document. Like PyYAML's safe_load it
// rejects a stream with a second document. dups lists keys written twice.
func parseNode(data []byte) (root *node, dups []dupKey, err error) {
	defer func() {
		// The YAML parser is third-party code; a panic on hostile input
		// must still end as a diagnostic.
		if r := recover(); r != nil {
			root, dups, err = nil, nil, fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &node{kind: scalarNode, line: 1, column: 1}, nil, nil
		}
		return nil, nil, err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, nil, &docError{line: next.Line}
	case !errors.Is(err, io.EOF):
		return nil, nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &node{kind: scalarNode, line: 1, column: 1}, nil, nil
	}
	c := converter{}
	root, err = c.convert(doc.Content[0], 0)
	return root, c.dups, err
}

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

// docError reports a second YAML document in the stream.
type docError struct{ line int }

func (e *docError) Error() string {
	return fmt.Sprintf("line %d: expected a single document in the stream, but found another document", e.line)
}

// dupKey is a mapping key written more than once; the last value wins, as
// in PyYAML.
type dupKey struct {
	in  *node
	key string
	pos Pos
}

type converter struct {
	// aliased counts the nodes copied by alias expansion; inAlias is the
	// depth of aliases being expanded.
	aliased int
	inAlias int
	dups    []dupKey
	// slab hands out nodes from chunks, to allocate less often.
	slab []node
}

func (c *converter) newNode(line, column int) *node {
	if len(c.slab) == cap(c.slab) {
		// Chunks grow with the document, so small ones stay small.
		c.slab = make([]node, 0, min(max(2*cap(c.slab), 16), 512))
	}
	c.slab = append(c.slab, node{line: line, column: column})
	return &c.slab[len(c.slab)-1]
}

func (c *converter) convert(y *yaml.Node, depth int) (*node, error) {
	if c.inAlias > 0 {
		c.aliased++
		if c.aliased > maxAliasNodes {
			return nil, errTooLarge
		}
	}
	if depth > 500 {
		return nil, errors.New("document nests too deeply")
	}
	n := c.newNode(y.Line, y.Column)
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, fmt.Errorf("line %d: unknown alias", y.Line)
		}
		c.inAlias++
		a, err := c.convert(y.Alias, depth+1)
		c.inAlias--
		if err != nil {
			return nil, err
		}
		a.line, a.column = y.Line, y.Column
		return a, nil
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return n, nil
		}
		return c.convert(y.Content[0], depth+1)
	case yaml.SequenceNode:
		n.kind = seqNode
		n.items = make([]*node, 0, len(y.Content))
		for _, it := range y.Content {
			v, err := c.convert(it, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
		return n, nil
	case yaml.MappingNode:
		n.kind = mapNode
		m := newMapBuilder(n, len(y.Content)/2)
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				if err := c.merge(m, v, depth); err != nil {
					return nil, err
				}
				continue
			}
			key, err := c.convert(k, depth+1)
			if err != nil {
				return nil, err
			}
			val, err := c.convert(v, depth+1)
			if err != nil {
				return nil, err
			}
			text := keyText(key)
			if !m.set(text, key.pos(), val) {
				c.dups = append(c.dups, dupKey{n, text, key.pos()})
			}
		}
		return n, nil
	}
	n.value = resolveScalar(y)
	switch {
	case y.Style&yaml.SingleQuotedStyle != 0:
		n.style = singleQuoted
	case y.Style&yaml.DoubleQuotedStyle != 0:
		n.style = doubleQuoted
	case y.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		n.style = blockStyle
	}
	return n, nil
}

// merge applies a YAML merge key (<<) as PyYAML does: keys written in the
// mapping win over merged ones, and earlier merge sources over later ones.
func (c *converter) merge(m *mapBuilder, v *yaml.Node, depth int) error {
	src, err := c.convert(v, depth+1)
	if err != nil {
		return err
	}
	sources := []*node{src}
	if src.kind == seqNode {
		sources = src.items
	}
	for _, s := range sources {
		if s.kind != mapNode {
			return fmt.Errorf("line %d: a merge key (<<) needs a mapping", s.line)
		}
		for i, k := range s.keys {
			if m.find(k) < 0 {
				m.add(k, s.keyPos[i], s.vals[i], true)
			}
		}
	}
	return nil
}

// mapBuilder fills a mapping node, finding keys through an index once the
// mapping is large (a flow may have thousands of methods).
type mapBuilder struct {
	n      *node
	index  map[string]int
	merged map[int]bool // entries that came from a merge key
}

func newMapBuilder(n *node, size int) *mapBuilder {
	n.keys = make([]string, 0, size)
	n.keyPos = make([]Pos, 0, size)
	n.vals = make([]*node, 0, size)
	m := &mapBuilder{n: n}
	if size > 16 {
		m.index = make(map[string]int, size)
	}
	return m
}

func (m *mapBuilder) find(key string) int {
	if m.index != nil {
		if i, ok := m.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range m.n.keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (m *mapBuilder) add(key string, p Pos, v *node, merged bool) {
	if m.index != nil {
		m.index[key] = len(m.n.keys)
	}
	if merged {
		if m.merged == nil {
			m.merged = map[int]bool{}
		}
		m.merged[len(m.n.keys)] = true
	}
	m.n.keys = append(m.n.keys, key)
	m.n.keyPos = append(m.n.keyPos, p)
	m.n.vals = append(m.n.vals, v)
}

// set stores v under key; it reports false when key was already written
// in the mapping (the new value replaces the old one at the first key's
// place). Replacing a merged value is no duplicate.
func (m *mapBuilder) set(key string, p Pos, v *node) bool {
	i := m.find(key)
	if i < 0 {
		m.add(key, p, v, false)
		return true
	}
	m.n.vals[i] = v
	if m.merged[i] {
		delete(m.merged, i)
		m.n.keyPos[i] = p
		return true
	}
	return false
}

// keyText renders a mapping key as Python would use it as a dict key once
// the document reaches pydantic: strings as is, other scalars as text.
func keyText(k *node) string {
	switch v := k.value.(type) {
	case string:
		return v
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case timestamp:
		return string(v)
	}
	return fmt.Sprint(k.data())
}

// YAML 1.1 implicit resolvers, as PyYAML's SafeLoader applies them.
var (
	reBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	reInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	reFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	reNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	reTime  = regexp.MustCompile(`^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$`)
)

func resolveScalar(y *yaml.Node) any {
	v := y.Value
	// Quoted and block scalars are strings.
	if y.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return v
	}
	// An explicit tag other than a core scalar one keeps the text.
	if y.Style&yaml.TaggedStyle != 0 {
		switch y.Tag {
		case "!!null", "!!bool", "!!int", "!!float", "!!timestamp":
		default:
			return v
		}
	}
	// Like PyYAML, try the resolvers only for scalars whose first character
	// can start a null, bool, number or date; most text cannot.
	if v == "" {
		return nil
	}
	if !strings.ContainsRune("yYnNtTfFoO~-+.0123456789", rune(v[0])) {
		return v
	}
	switch {
	case reNull.MatchString(v):
		return nil
	case reBool.MatchString(v):
		switch strings.ToLower(v) {
		case "yes", "true", "on":
			return true
		}
		return false
	case reInt.MatchString(v):
		if i, ok := parseYAMLInt(v); ok {
			return i
		}
		return v
	case reFloat.MatchString(v):
		return parseYAMLFloat(v)
	case reTime.MatchString(v):
		return timestamp(v)
	}
	return v
}

func parseYAMLInt(s string) (int64, bool) {
	s = strings.ReplaceAll(s, "_", "")
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	var v int64
	var err error
	switch {
	case s == "0":
		v = 0
	case strings.HasPrefix(s, "0b"):
		v, err = strconv.ParseInt(s[2:], 2, 64)
	case strings.HasPrefix(s, "0x"):
		v, err = strconv.ParseInt(s[2:], 16, 64)
	case strings.HasPrefix(s, "0"):
		v, err = strconv.ParseInt(s[1:], 8, 64)
	case strings.Contains(s, ":"):
		for _, part := range strings.Split(s, ":") {
			d, e := strconv.ParseInt(part, 10, 64)
			if e != nil {
				return 0, false
			}
			v = v*60 + d
		}
	default:
		v, err = strconv.ParseInt(s, 10, 64)
	}
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

func parseYAMLFloat(s string) float64 {
	s = strings.ReplaceAll(s, "_", "")
	lower := strings.ToLower(s)
	switch {
	case strings.HasSuffix(lower, ".inf"):
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case strings.HasSuffix(lower, ".nan"):
		return math.NaN()
	case strings.Contains(s, ":"):
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimLeft(s, "+-")
		parts := strings.Split(s, ":")
		var v float64
		for _, p := range parts {
			d, _ := strconv.ParseFloat(p, 64)
			v = v*60 + d
		}
		if neg {
			v = -v
		}
		return v
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
