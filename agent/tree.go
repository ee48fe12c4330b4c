package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// place is where a value stands: its file, line and column. Values merged
// from a base file keep the base's place, so diagnostics point where a
// value was written.
type place struct {
	file         string
	line, column int
}

// value is a parsed YAML (or JSON) value with its place.
type value struct {
	kind yaml.Kind // ScalarNode, MappingNode or SequenceNode
	// tag is the resolved YAML 1.2 tag of a scalar (!!str, !!int, ...).
	tag  string
	text string
	at   place
	// mapping: keys (scalars, for their places) and values in source order.
	keys []*value
	vals []*value
	// sequence
	items []*value
}

// get returns the value of key in a mapping, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != yaml.MappingNode {
		return nil
	}
	for i, k := range v.keys {
		if k.text == key {
			return v.vals[i]
		}
	}
	return nil
}

func (v *value) isNull() bool { return v.kind == yaml.ScalarNode && v.tag == "!!null" }

// describe names the value's type for messages.
func (v *value) describe() string {
	switch v.kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch v.tag {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	}
	return "a string"
}

// maxNodes bounds the values of one document, alias expansion included, so
// that a hostile document cannot exhaust memory.
const maxNodes = 1 << 16

// A syntaxError is a document that does not parse.
type syntaxError struct {
	line int
	msg  string
}

// Error implements error.
func (e *syntaxError) Error() string { return e.msg }

// dupKey is a mapping key written twice; the last value wins.
type dupKey struct {
	key string
	at  place
}

// parseValue parses one YAML or JSON document of file.
func parseValue(data []byte, file string) (root *value, dups []dupKey, err error) {
	defer func() {
		// The YAML parser is third-party code: a panic on hostile input
		// must still end as a diagnostic.
		if r := recover(); r != nil {
			root, dups, err = nil, nil, &syntaxError{msg: fmt.Sprintf("the YAML parser failed: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var y yaml.Node
	if err := dec.Decode(&y); err != nil {
		if errors.Is(err, io.EOF) {
			return &value{kind: yaml.ScalarNode, tag: "!!null", at: place{file, 1, 1}}, nil, nil
		}
		return nil, nil, &syntaxError{line: yamlErrorLine(err), msg: err.Error()}
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, nil, &syntaxError{line: next.Line, msg: "expected a single document, found another one"}
	}
	c := &converter{file: file}
	root, err = c.convert(&y, 0)
	return root, c.dups, err
}

// yamlErrorLine reads the line of a yaml.v3 error ("yaml: line 3: ..."), or 0.
func yamlErrorLine(err error) int {
	var line int
	if _, e := fmt.Sscanf(err.Error(), "yaml: line %d:", &line); e == nil {
		return line
	}
	return 0
}

type converter struct {
	file  string
	nodes int
	dups  []dupKey
}

func (c *converter) convert(y *yaml.Node, depth int) (*value, error) {
	c.nodes++
	if c.nodes > maxNodes {
		return nil, &syntaxError{line: y.Line, msg: fmt.Sprintf("the document has more than %d values (aliases included)", maxNodes)}
	}
	if depth > 100 {
		return nil, &syntaxError{line: y.Line, msg: "the document nests too deeply"}
	}
	at := place{c.file, y.Line, y.Column}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &value{kind: yaml.ScalarNode, tag: "!!null", at: at}, nil
		}
		return c.convert(y.Content[0], depth+1)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &syntaxError{line: y.Line, msg: "unknown alias"}
		}
		v, err := c.convert(y.Alias, depth+1)
		if err != nil {
			return nil, err
		}
		cp := *v
		cp.at = at
		return &cp, nil
	case yaml.SequenceNode:
		v := &value{kind: yaml.SequenceNode, at: at, items: make([]*value, 0, len(y.Content))}
		for _, it := range y.Content {
			iv, err := c.convert(it, depth+1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, iv)
		}
		return v, nil
	case yaml.MappingNode:
		v := &value{kind: yaml.MappingNode, at: at}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, err := c.convert(y.Content[i], depth+1)
			if err != nil {
				return nil, err
			}
			val, err := c.convert(y.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			if j := v.index(k.text); j >= 0 {
				c.dups = append(c.dups, dupKey{k.text, k.at})
				v.vals[j] = val
				continue
			}
			v.keys = append(v.keys, k)
			v.vals = append(v.vals, val)
		}
		return v, nil
	}
	return &value{kind: yaml.ScalarNode, tag: y.ShortTag(), text: y.Value, at: at}, nil
}

func (v *value) index(key string) int {
	for i, k := range v.keys {
		if k.text == key {
			return i
		}
	}
	return -1
}

// merge returns base overridden by over: mappings merge key by key, lists
// and scalars replace. Values keep their places, so a merged document
// still says where each value came from.
func merge(base, over *value) *value {
	if base == nil || base.kind != yaml.MappingNode || over.kind != yaml.MappingNode {
		return over
	}
	out := &value{kind: yaml.MappingNode, at: over.at, keys: append([]*value(nil), base.keys...), vals: append([]*value(nil), base.vals...)}
	for i, k := range over.keys {
		if j := out.index(k.text); j >= 0 {
			out.keys[j] = k
			out.vals[j] = merge(out.vals[j], over.vals[i])
			continue
		}
		out.keys = append(out.keys, k)
		out.vals = append(out.vals, over.vals[i])
	}
	return out
}
