package fake

import (
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/internal/fakescript"
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
	root, serr := fakescript.Document(data, source, "tools")
	if serr != nil {
		return nil, serr
	}
	p := parser{Reader: fakescript.Reader{Source: source}, names: map[string]bool{}}
	switch root.Kind {
	case yaml.SequenceNode:
		p.tools(root)
	case yaml.MappingNode:
		p.Mapping(root, "", func(key string, k, v *yaml.Node) {
			if key != "tools" {
				p.Fail(k, key, "unknown key; want tools")
				return
			}
			p.tools(v)
		})
	default:
		p.Fail(root, "", "want a mapping with tools, or a list of tools")
	}
	if p.Err != nil {
		return nil, p.Err
	}
	return p.out, nil
}

// parser walks a script, keeping the first error.
type parser struct {
	fakescript.Reader
	names map[string]bool
	out   []action.Tool
}

// maxDepth bounds the nesting of values.
const maxDepth = 500

func (p *parser) tools(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		p.Fail(n, "tools", "want a list of tools")
		return
	}
	for i, item := range n.Content {
		p.tool(fakescript.Deref(item), fakescript.Index("tools", i))
		if p.Err != nil {
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
	p.Mapping(n, path, func(key string, k, v *yaml.Node) {
		at := fakescript.Join(path, key)
		switch key {
		case "name":
			spec.Name, nameNode = p.Str(v, at), v
		case "description":
			spec.Description = p.Str(v, at)
		case "parameters":
			if v.Kind != yaml.MappingNode {
				p.Fail(v, at, "want a JSON Schema mapping, such as {type: object, properties: {...}}")
				return
			}
			spec.Parameters, _ = p.data(v, at, 0).(map[string]any)
			params = v
		case "replies":
			entries = p.replies(v, at)
		default:
			p.Fail(k, at, "unknown key; want name, description, parameters or replies")
		}
	})
	if p.Err != nil {
		return
	}
	switch {
	case spec.Name == "":
		at := n
		if nameNode != nil {
			at = nameNode
		}
		p.Fail(at, fakescript.Join(path, "name"), "missing tool name")
		return
	case p.names[spec.Name]:
		p.Fail(nameNode, fakescript.Join(path, "name"), fmt.Sprintf("tool %q is defined twice", spec.Name))
		return
	}
	p.names[spec.Name] = true
	t := &Tool{entries: entries}
	if err := t.setSpec(spec); err != nil {
		if params == nil {
			params = n
		}
		p.Fail(params, fakescript.Join(path, "parameters"), err.Error())
		return
	}
	p.out = append(p.out, t)
}

func (p *parser) replies(n *yaml.Node, path string) []*entry {
	return fakescript.Entries(&p.Reader, n, path, p.replyField, compile)
}

func (p *parser) replyField(r *ToolReply, path, key string, k, v *yaml.Node) {
	at := fakescript.Join(path, key)
	switch key {
	case "match":
		switch v.Kind {
		case yaml.MappingNode:
			r.Args, _ = p.data(v, at, 0).(map[string]any)
		case yaml.ScalarNode:
			r.Pattern = p.Str(v, at)
		default:
			p.Fail(v, at, "want a mapping of arguments, or an RE2 expression")
		}
	case "times":
		r.Times = p.Times(v, at)
	case "result":
		r.Result = p.data(v, at, 0)
	case "error":
		if r.Error = p.Str(v, at); r.Error == "" && p.Err == nil {
			p.Fail(v, at, "want the error's message")
		}
	case "delay":
		r.Delay = p.Duration(v, at)
	default:
		p.Fail(k, at, "unknown key; want match, times, result, error or delay")
	}
}
