package flow

import (
	"fmt"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
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
			dst = appendJSONString(dst, n.Content[i].Value)
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
			return appendJSONString(dst, n.Value), nil
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

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s for JSON. Besides what JSON requires, it escapes
// the characters YAML does not allow unescaped (DEL, C1 controls, BOM and
// non-characters), since the loader reads JSON with a YAML parser. Invalid
// UTF-8 becomes U+FFFD, as with encoding/json.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError && !yamlNeedsEscape(r) {
				i += size
				continue
			}
		}
		dst = append(dst, s[start:i]...)
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		default:
			dst = append(dst, '\\', 'u',
				hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func yamlNeedsEscape(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0xfeff || r == 0xfffe || r == 0xffff
}
