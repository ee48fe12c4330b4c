package flow

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// docMap is a mapping node being filled in key order.
type docMap struct{ *yaml.Node }

func newDocMap() docMap { return docMap{&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}} }

func (m docMap) add(key string, v *yaml.Node) {
	m.Content = append(m.Content, strNode(key), v)
}

// strNode writes s so that a YAML 1.1 reader (PyYAML, and our loader) reads
// it back as the same string: quoted when it would otherwise resolve to a
// boolean, number, null or date, and as a literal block when multi-line.
func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch {
	case strings.ContainsRune(s, '\n'):
		n.Style = yaml.LiteralStyle
	case plainIsNotString(s), strings.ContainsRune(s, '\''):
		// Double quotes also spare CEL string literals the doubled single
		// quotes of YAML's single-quoted style.
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func plainIsNotString(s string) bool {
	if s == "" {
		return true
	}
	// Numbers and dates start with a digit, a sign or a dot; text that
	// starts with a letter is a string unless it is a null or bool word.
	if c := s[0]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		switch s {
		case "null", "Null", "NULL", "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE",
			"false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF":
			return true
		}
		return false
	}
	if s == "<<" || s == "=" {
		return true
	}
	_, ok := resolveScalar(&yaml.Node{Kind: yaml.ScalarNode, Value: s}).(string)
	return !ok
}

func strListNode(list []string, flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	n.Content = make([]*yaml.Node, 0, len(list))
	for _, s := range list {
		n.Content = append(n.Content, strNode(s))
	}
	return n
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

func intNode(i int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(i, 10)}
}

func nullNode() *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// floatNode writes f so that it reads back as a float, never an integer:
// YAML 1.1 needs a dot in the mantissa and a signed exponent (1.0e+20).
func floatNode(f float64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: formatFloat(f)}
}

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	case math.IsNaN(f):
		return ".nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	mant, exp, hasExp := strings.Cut(s, "e")
	if !strings.ContainsRune(mant, '.') {
		mant += ".0"
	}
	if hasExp {
		return mant + "e" + exp
	}
	return mant
}

// dataNode writes JSON data; maps are written with sorted keys.
func (w *docWriter) dataNode(path string, v any) *yaml.Node {
	switch v := v.(type) {
	case nil:
		return nullNode()
	case bool:
		return boolNode(v)
	case string:
		return strNode(v)
	case int64:
		return intNode(v)
	case float64:
		return floatNode(v)
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: make([]*yaml.Node, 0, len(v))}
		for i, it := range v {
			n.Content = append(n.Content, w.dataNode(index(path, i), it))
		}
		return n
	case map[string]any:
		m := newDocMap()
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m.Content = make([]*yaml.Node, 0, 2*len(keys))
		for _, k := range keys {
			m.add(k, w.dataNode(join(path, k), v[k]))
		}
		return m.Node
	}
	c, err := jsonData(v)
	if err != nil {
		w.fail(subPath(path, err.path), "%v", err)
		return nullNode()
	}
	return w.dataNode(path, c)
}
