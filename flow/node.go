package flow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

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

// bigInt is an unquoted integer that does not fit in an int64, such as
// 9223372036854775808. PyYAML reads it as a Python int; Troupe has no such
// integers and reports it as an error instead of silently reading text or
// a rounded float (see converter.bigInts).
type bigInt string

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

// outOfRange reports whether n is an integer too large for an int64, which
// the loader has reported already (see reportBigInts).
func (n *node) outOfRange() bool {
	_, ok := n.value.(bigInt)
	return ok
}

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
	case bigInt:
		return "integer out of range"
	}
	return "string"
}

// data converts the node to JSON data. Timestamps become their text; where
// they are not valid data, the decoder reports them (exprData).
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
	switch v := n.value.(type) {
	case timestamp:
		return string(v)
	case bigInt:
		return string(v)
	}
	return n.value
}

// maxAliasNodes bounds the nodes that alias expansion may add, so that a
// hostile document ("billion laughs") cannot exhaust time or memory. Nodes
// written out in the text need no bound: the text already holds them.
const maxAliasNodes = 1 << 17

// expansionError reports a document that alias expansion makes too large,
// at the alias (written in the document, not inside an anchor) whose
// expansion crosses the limit.
type expansionError struct {
	pos Pos
	msg string
}

func (e *expansionError) Error() string { return e.msg }

// document is a parsed YAML (or JSON) document and what the parser noticed
// on the way that the decoder reports.
type document struct {
	root *node
	// dups lists keys written twice in one mapping.
	dups []dupKey
	// bigInts lists the integers too large for an int64, in source order
	// (an alias repeats the ones of its anchor).
	bigInts []bigIntAt
}

// bigIntAt is an integer too large for an int64 and where it is written.
type bigIntAt struct {
	text string
	pos  Pos
}

// parseNode parses one YAML (or JSON) document with the default limits;
// see parseDocument.
func parseNode(data []byte) (*node, []dupKey, error) {
	doc, err := parseDocument(data, loadOptions{}.aliasLimit(len(data)))
	if err != nil {
		return nil, nil, err
	}
	return doc.root, doc.dups, nil
}

// parseDocument parses one YAML (or JSON) document. Like PyYAML's safe_load
// it rejects a stream with a second document. Alias expansion may add at
// most aliasLimit bytes (none when negative) and maxAliasNodes nodes.
func parseDocument(data []byte, aliasLimit int) (doc *document, err error) {
	defer func() {
		// The YAML parser is third-party code; a panic on hostile input
		// must still end as a diagnostic.
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	empty := &document{root: &node{kind: scalarNode, line: 1, column: 1}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var y yaml.Node
	if err := dec.Decode(&y); err != nil {
		if errors.Is(err, io.EOF) {
			return empty, nil
		}
		return nil, err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, &docError{line: next.Line}
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	if y.Kind == 0 || len(y.Content) == 0 {
		return empty, nil
	}
	c := converter{aliasLimit: aliasLimit}
	root, err := c.convert(y.Content[0], 0)
	if err != nil {
		return nil, err
	}
	return &document{root: root, dups: c.dups, bigInts: c.bigInts}, nil
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
	// aliased counts the nodes copied by alias expansion, aliasBytes their
	// bytes, against aliasLimit (none when negative); inAlias is the depth
	// of aliases being expanded, aliasAt the place of the outermost one.
	aliased    int
	aliasBytes int
	aliasLimit int
	inAlias    int
	aliasAt    Pos
	dups       []dupKey
	bigInts    []bigIntAt
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
			return nil, &expansionError{c.aliasAt, fmt.Sprintf("document expands to too many nodes (alias expansion): aliases may copy at most %d nodes, and this alias goes past that", maxAliasNodes)}
		}
		c.aliasBytes += len(y.Value) + 1
		if c.aliasLimit >= 0 && c.aliasBytes > c.aliasLimit {
			return nil, &expansionError{c.aliasAt, fmt.Sprintf("document expands past its alias limit: aliases may add at most %d bytes, and this alias goes past that (a Go caller can change the limit with flow.WithMaxAliasBytes)", c.aliasLimit)}
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
		if c.inAlias == 0 {
			c.aliasAt = Pos{y.Line, y.Column}
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
	if b, ok := n.value.(bigInt); ok {
		c.bigInts = append(c.bigInts, bigIntAt{string(b), n.pos()})
	}
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
	case bigInt:
		return string(v)
	}
	return fmt.Sprint(k.data())
}
