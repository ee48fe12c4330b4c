package fake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/internal/yamlsyntax"
	"github.com/troupe-dev/troupe/llm"
	llmfake "github.com/troupe-dev/troupe/llm/fake"
)

// A ScriptError reports a problem in a YAML script, with its position. It
// is the same type as llm/fake's: File is the path given to [LoadTools] or
// the source given to [ParseTools], and Path locates the value, e.g.
// "tools[0].replies[2].times".
type ScriptError = llmfake.ScriptError

// LoadTools reads a YAML script of tools from path (see the package
// documentation). Each tool is a [*Tool].
func LoadTools(path string) ([]action.Tool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	return ParseTools(data, path)
}

// ParseTools reads a YAML script of tools (see the package documentation):
// a mapping with a list of tools, or just the list. source names the
// script in errors, which are [*ScriptError] values. Each tool is a
// [*Tool].
func ParseTools(data []byte, source string) (tools []action.Tool, err error) {
	defer func() {
		// The YAML parser is third-party code: a panic on hostile input
		// must still end as an error.
		if r := recover(); r != nil {
			tools, err = nil, &ScriptError{File: source, Line: 1, Column: 1, Msg: fmt.Sprintf("the YAML parser failed: %v", r)}
		}
	}()
	root, err := parseYAML(data, source)
	if err != nil {
		return nil, err
	}
	p := parser{source: source, names: map[string]bool{}}
	switch root.Kind {
	case yaml.SequenceNode:
		p.tools(root)
	case yaml.MappingNode:
		p.mapping(root, "", func(key string, k, v *yaml.Node) {
			if key != "tools" {
				p.fail(k, key, "unknown key; want tools")
				return
			}
			p.tools(v)
		})
	default:
		p.fail(root, "", "want a mapping with tools, or a list of tools")
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.out, nil
}

// parseYAML parses the one document of a script and returns its root.
func parseYAML(data []byte, source string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, syntaxError(data, source, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &ScriptError{File: source, Line: 1, Column: 1, Msg: "the script is empty; want a mapping with tools"}
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &ScriptError{File: source, Line: next.Line, Column: next.Column, Msg: "a second YAML document; a script is one document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(data, source, err)
	}
	return deref(doc.Content[0]), nil
}

// syntaxError reports err, the parser's error, at the place where data
// stops being YAML (line 1, column 1 when no place can be found).
func syntaxError(data []byte, source string, err error) *ScriptError {
	line, col, ok := yamlsyntax.Locate(data)
	if !ok {
		line, col = 1, 1
	}
	return &ScriptError{File: source, Line: line, Column: col, Msg: "invalid YAML: " + yamlsyntax.Message(err)}
}

// parser walks a script, keeping the first error.
type parser struct {
	source string
	names  map[string]bool
	out    []action.Tool
	err    *ScriptError
	nodes  int // nodes visited, aliases expanded
}

// maxNodes bounds the nodes a script may expand to through aliases, so
// that a hostile one ("billion laughs") cannot exhaust time or memory.
const maxNodes = 1 << 17

// maxDepth bounds the nesting of values.
const maxDepth = 500

func (p *parser) fail(n *yaml.Node, path, msg string) {
	if p.err == nil {
		p.err = &ScriptError{File: p.source, Line: n.Line, Column: n.Column, Path: path, Msg: msg}
	}
}

// visit counts a node, failing once the script expands to too many.
func (p *parser) visit(n *yaml.Node, path string) bool {
	p.nodes++
	if p.nodes > maxNodes {
		p.fail(n, path, fmt.Sprintf("the script expands to more than %d values (aliases)", maxNodes))
	}
	return p.err == nil
}

// deref follows YAML aliases.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// mapping calls f for each key of n, rejecting duplicates and non-mappings.
func (p *parser) mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node)) {
	n = deref(n)
	if !p.visit(n, path) {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n, path, "want a mapping")
		return
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content) && p.err == nil; i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.fail(k, path, "want a text key")
			return
		}
		if k.ShortTag() == "!!merge" {
			p.fail(k, join(path, k.Value), "merge keys (<<) are not supported; write the keys out")
			return
		}
		if seen[k.Value] {
			p.fail(k, join(path, k.Value), "duplicate key")
			return
		}
		seen[k.Value] = true
		f(k.Value, k, v)
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (p *parser) tools(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "tools", "want a list of tools")
		return
	}
	for i, item := range n.Content {
		p.tool(deref(item), fmt.Sprintf("tools[%d]", i))
		if p.err != nil {
			return
		}
	}
}

func (p *parser) tool(n *yaml.Node, path string) {
	var (
		spec     llm.ToolSpec
		nameNode *yaml.Node
		params   *yaml.Node
		entries  []*entry
	)
	p.mapping(n, path, func(key string, k, v *yaml.Node) {
		at := join(path, key)
		switch key {
		case "name":
			spec.Name, nameNode = p.str(v, at), v
		case "description":
			spec.Description = p.str(v, at)
		case "parameters":
			if v.Kind != yaml.MappingNode {
				p.fail(v, at, "want a JSON Schema mapping, such as {type: object, properties: {...}}")
				return
			}
			spec.Parameters, _ = p.data(v, at, 0).(map[string]any)
			params = v
		case "replies":
			entries = p.replies(v, at)
		default:
			p.fail(k, at, "unknown key; want name, description, parameters or replies")
		}
	})
	if p.err != nil {
		return
	}
	switch {
	case spec.Name == "":
		at := n
		if nameNode != nil {
			at = nameNode
		}
		p.fail(at, join(path, "name"), "missing tool name")
		return
	case p.names[spec.Name]:
		p.fail(nameNode, join(path, "name"), fmt.Sprintf("tool %q is defined twice", spec.Name))
		return
	}
	p.names[spec.Name] = true
	t := &Tool{entries: entries}
	if err := t.setSpec(spec); err != nil {
		if params == nil {
			params = n
		}
		p.fail(params, join(path, "parameters"), err.Error())
		return
	}
	p.out = append(p.out, t)
}

func (p *parser) replies(n *yaml.Node, path string) []*entry {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, path, "want a list of replies")
		return nil
	}
	entries := make([]*entry, 0, len(n.Content))
	for i, item := range n.Content {
		at := fmt.Sprintf("%s[%d]", path, i)
		keys := map[string]*yaml.Node{}
		var r ToolReply
		p.mapping(item, at, func(key string, k, v *yaml.Node) {
			keys[key] = k
			p.replyField(&r, at, key, k, v)
		})
		if p.err != nil {
			return nil
		}
		e, err := compile(r)
		if err != nil {
			// compile returns only *fieldError values.
			fe, _ := errors.AsType[*fieldError](err)
			node := deref(item)
			if k := keys[fe.field]; k != nil {
				node = k
			}
			p.fail(node, join(at, fe.field), fe.msg)
			return nil
		}
		entries = append(entries, e)
	}
	return entries
}

func (p *parser) replyField(r *ToolReply, path, key string, k, v *yaml.Node) {
	at := join(path, key)
	switch key {
	case "match":
		switch v.Kind {
		case yaml.MappingNode:
			r.Args, _ = p.data(v, at, 0).(map[string]any)
		case yaml.ScalarNode:
			r.Pattern = p.str(v, at)
		default:
			p.fail(v, at, "want a mapping of arguments, or an RE2 expression")
		}
	case "times":
		r.Times = p.int(v, at)
		if r.Times <= 0 && p.err == nil {
			p.fail(v, at, fmt.Sprintf("must be a positive integer, got %d", r.Times))
		}
	case "result":
		r.Result = p.data(v, at, 0)
	case "error":
		if r.Error = p.str(v, at); r.Error == "" && p.err == nil {
			p.fail(v, at, "want the error's message")
		}
	case "delay":
		r.Delay = p.duration(v, at)
	default:
		p.fail(k, at, "unknown key; want match, times, result, error or delay")
	}
}

// str reads a scalar as text, as written (so `name: yes` is "yes").
func (p *parser) str(n *yaml.Node, path string) string {
	if n.Kind != yaml.ScalarNode {
		p.fail(n, path, "want a string")
		return ""
	}
	if n.ShortTag() == "!!null" {
		return ""
	}
	return n.Value
}

func (p *parser) int(n *yaml.Node, path string) int {
	var v int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		p.fail(n, path, fmt.Sprintf("want an integer, got %q", n.Value))
	}
	return v
}

// duration reads a Go duration ("250ms") or a number of seconds.
func (p *parser) duration(n *yaml.Node, path string) time.Duration {
	if n.Kind == yaml.ScalarNode {
		if d, err := time.ParseDuration(n.Value); err == nil && d >= 0 {
			return d
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f >= 0 && f < 1e9 {
			return time.Duration(f * float64(time.Second))
		}
	}
	p.fail(n, path, fmt.Sprintf("want a duration such as 250ms or a number of seconds, got %q", n.Value))
	return 0
}
