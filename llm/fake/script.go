package fake

import (
	"errors"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/internal/fakescript"
	"github.com/troupe-dev/troupe/llm"
)

// A ScriptError reports a problem in a YAML script, with its position:
// File is the script's path when it was read by [Load], Line and Column
// where the problem is, Path locates the value (e.g. "replies[2].times")
// and Msg says what is wrong.
type ScriptError = fakescript.Error

// Load reads a YAML script from path (see the package documentation).
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	m, err := Parse(data)
	if err != nil {
		if se, ok := errors.AsType[*ScriptError](err); ok {
			se.File = path
			return nil, se
		}
		return nil, fmt.Errorf("fake: %s: %w", path, errors.Unwrap(err))
	}
	return m, nil
}

// Parse reads a YAML script (see the package documentation): a mapping with
// function_calling and replies, or just the list of replies.
func Parse(data []byte) (*Model, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &ScriptError{Line: 1, Column: 1, Msg: "the script is empty; want a mapping with replies"}
	}
	root := fakescript.Deref(doc.Content[0])
	p := parser{fc: true}
	switch root.Kind {
	case yaml.SequenceNode:
		p.replies(root)
	case yaml.MappingNode:
		p.Mapping(root, "", func(key string, k, v *yaml.Node) {
			switch key {
			case "function_calling":
				p.fc = p.Bool(v, key)
			case "replies":
				p.replies(v)
			default:
				p.Fail(k, key, "unknown key; want function_calling or replies")
			}
		})
	default:
		p.Fail(root, "", "want a mapping with replies, or a list of replies")
	}
	if p.Err != nil {
		return nil, p.Err
	}
	m := &Model{entries: p.entries}
	m.noFunctionCalling.Store(!p.fc)
	return m, nil
}

// parser walks a script, keeping the first error.
type parser struct {
	fakescript.Reader
	fc      bool
	entries []*entry
}

func (p *parser) replies(n *yaml.Node) {
	p.entries = fakescript.Entries(&p.Reader, n, "replies", p.replyField, compile)
}

func (p *parser) replyField(r *Reply, path, key string, k, v *yaml.Node) {
	at := fakescript.Join(path, key)
	switch key {
	case "match":
		r.Match = p.Str(v, at)
	case "times":
		r.Times = p.Times(v, at)
	case "text":
		r.Text = p.Str(v, at)
	case "json":
		if err := v.Decode(&r.JSON); err != nil {
			p.Fail(v, at, err.Error())
		}
	case "tool_calls":
		r.ToolCalls = p.toolCalls(v, at)
	case "error":
		r.Error = p.Str(v, at)
	case "status":
		r.Status = p.Int(v, at)
	case "usage":
		r.Usage = p.usage(v, at)
	case "finish_reason":
		r.FinishReason = p.finishReason(v, at)
	case "delay":
		r.Delay = p.Duration(v, at)
	default:
		p.Fail(k, at, "unknown key; want match, times, text, json, tool_calls, error, status, usage, finish_reason or delay")
	}
}

func (p *parser) toolCalls(n *yaml.Node, path string) []ToolCall {
	if n.Kind != yaml.SequenceNode {
		p.Fail(n, path, "want a list of tool calls")
		return nil
	}
	calls := make([]ToolCall, 0, len(n.Content))
	for i, item := range n.Content {
		at := fakescript.Index(path, i)
		var c ToolCall
		p.Mapping(item, at, func(key string, k, v *yaml.Node) {
			switch key {
			case "id":
				c.ID = p.Str(v, fakescript.Join(at, key))
			case "name":
				c.Name = p.Str(v, fakescript.Join(at, key))
			case "arguments":
				if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
					c.Arguments = v.Value // JSON text, used verbatim
				} else if err := v.Decode(&c.Arguments); err != nil {
					p.Fail(v, fakescript.Join(at, key), err.Error())
				}
			default:
				p.Fail(k, fakescript.Join(at, key), "unknown key; want id, name or arguments")
			}
		})
		if c.Name == "" && p.Err == nil {
			p.Fail(fakescript.Deref(item), fakescript.Join(at, "name"), "missing tool name")
		}
		calls = append(calls, c)
	}
	return calls
}

func (p *parser) usage(n *yaml.Node, path string) *llm.Usage {
	u := &llm.Usage{}
	p.Mapping(n, path, func(key string, k, v *yaml.Node) {
		var dst *int64
		switch key {
		case "input_tokens":
			dst = &u.InputTokens
		case "output_tokens":
			dst = &u.OutputTokens
		case "cached_input_tokens":
			dst = &u.CachedInputTokens
		case "cache_creation_tokens":
			dst = &u.CacheCreationTokens
		case "reasoning_tokens":
			dst = &u.ReasoningTokens
		default:
			p.Fail(k, fakescript.Join(path, key), "unknown key; want input_tokens, output_tokens, cached_input_tokens, cache_creation_tokens or reasoning_tokens")
			return
		}
		if *dst = int64(p.Int(v, fakescript.Join(path, key))); *dst < 0 && p.Err == nil {
			p.Fail(v, fakescript.Join(path, key), "must not be negative")
		}
	})
	return u
}

func (p *parser) finishReason(n *yaml.Node, path string) llm.FinishReason {
	s := llm.FinishReason(p.Str(n, path))
	switch s {
	case llm.FinishStop, llm.FinishLength, llm.FinishToolCalls, llm.FinishContentFilter, llm.FinishError, llm.FinishOther:
		return s
	}
	if p.Err == nil {
		p.Fail(n, path, fmt.Sprintf("unknown finish reason %q; want stop, length, tool_calls, content_filter, error or other", s))
	}
	return ""
}
