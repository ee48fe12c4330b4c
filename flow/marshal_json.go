package flow

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// appendJSON writes a document tree built by docWriter as indented JSON,
// keeping mapping keys in order. Scalars are typed by their tag: strings are
// quoted, numbers, booleans and null written bare.
func appendJSON(dst []byte, n *yaml.Node, depth int) ([]byte, error) {
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			return append(dst, "{}"...), nil
		}
		dst = append(dst, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendIndent(dst, depth+1)
			dst = jsondata.AppendQuoted(dst, n.Content[i].Value, jsondata.YAML)
			dst = append(dst, ": "...)
			var err error
			if dst, err = appendJSON(dst, n.Content[i+1], depth+1); err != nil {
				return nil, err
			}
		}
		dst = appendIndent(dst, depth)
		return append(dst, '}'), nil
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return append(dst, "[]"...), nil
		}
		dst = append(dst, '[')
		for i, it := range n.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendIndent(dst, depth+1)
			var err error
			if dst, err = appendJSON(dst, it, depth+1); err != nil {
				return nil, err
			}
		}
		dst = appendIndent(dst, depth)
		return append(dst, ']'), nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return jsondata.AppendQuoted(dst, n.Value, jsondata.YAML), nil
		case "!!float":
			switch n.Value {
			case ".inf", "-.inf", ".nan":
				return nil, fmt.Errorf("%w: JSON has no %s; use YAML for infinite and NaN numbers", ErrNotSerializable, n.Value)
			}
		}
		return append(dst, n.Value...), nil
	}
	return nil, fmt.Errorf("%w: unexpected YAML node kind %d", ErrNotSerializable, n.Kind)
}

func appendIndent(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, "  "...)
	}
	return dst
}
