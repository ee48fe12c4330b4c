package fake

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/internal/fakescript"
)

// data converts a YAML value into JSON data: mappings become
// map[string]any (keys as written), sequences []any, integers int64, other
// numbers float64; dates and other tagged scalars stay text. Scalars are
// read with YAML 1.2's core rules, as in llm/fake: `yes` is a string.
func (p *parser) data(n *yaml.Node, path string, depth int) any {
	n = fakescript.Deref(n)
	if !p.Visit(n, path) {
		return nil
	}
	if depth > maxDepth {
		p.Fail(n, path, fmt.Sprintf("values nest more than %d levels deep", maxDepth))
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		p.Mapping(n, path, func(key string, _, v *yaml.Node) {
			m[key] = p.data(v, fakescript.Join(path, key), depth+1)
		})
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, it := range n.Content {
			if l[i] = p.data(it, fakescript.Index(path, i), depth+1); p.Err != nil {
				return nil
			}
		}
		return l
	case yaml.ScalarNode:
		return p.scalar(n, path)
	}
	p.Fail(n, path, "want a value")
	return nil
}

func (p *parser) scalar(n *yaml.Node, path string) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		// Beyond int64: a float, as JSON readers do.
		return p.float(n, path)
	case "!!float":
		return p.float(n, path)
	}
	return n.Value
}

func (p *parser) float(n *yaml.Node, path string) any {
	var f float64
	if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.Fail(n, path, fmt.Sprintf("%s is not a JSON number", n.Value))
		return nil
	}
	return f
}
