package fake

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/llm"
)

// A ScriptError reports a problem in a YAML script, with its position.
type ScriptError struct {
	// File is the script's path when it was read by [Load].
	File         string
	Line, Column int
	// Path locates the value, e.g. "replies[2].times".
	Path string
	Msg  string
}

// Error implements error.
func (e *ScriptError) Error() string {
	var b strings.Builder
	b.WriteString("fake: ")
	if e.File != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Column)
	} else {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

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
	root := deref(doc.Content[0])
	p := parser{fc: true}
	switch root.Kind {
	case yaml.SequenceNode:
		p.replies(root)
	case yaml.MappingNode:
		p.mapping(root, "", func(key string, k, v *yaml.Node) {
			switch key {
			case "function_calling":
				p.fc = p.bool(v, key)
			case "replies":
				p.replies(v)
			default:
				p.fail(k, key, "unknown key; want function_calling or replies")
			}
		})
	default:
		p.fail(root, "", "want a mapping with replies, or a list of replies")
	}
	if p.err != nil {
		return nil, p.err
	}
	m := &Model{entries: p.entries}
	m.noFunctionCalling.Store(!p.fc)
	return m, nil
}

// parser walks a script, keeping the first error.
type parser struct {
	fc      bool
	entries []*entry
	err     *ScriptError
}

func (p *parser) fail(n *yaml.Node, path, msg string) {
	if p.err == nil {
		p.err = &ScriptError{Line: n.Line, Column: n.Column, Path: path, Msg: msg}
	}
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
	if n.Kind != yaml.MappingNode {
		p.fail(n, path, "want a mapping")
		return
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content) && p.err == nil; i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
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

func (p *parser) replies(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "replies", "want a list of replies")
		return
	}
	for i, item := range n.Content {
		path := fmt.Sprintf("replies[%d]", i)
		keys := map[string]*yaml.Node{}
		var r Reply
		p.mapping(item, path, func(key string, k, v *yaml.Node) {
			keys[key] = k
			p.replyField(&r, key, path, k, v)
		})
		if p.err != nil {
			return
		}
		e, err := compile(r)
		if err != nil {
			fe, ok := errors.AsType[*fieldError](err)
			if !ok {
				p.fail(deref(item), path, err.Error())
				return
			}
			at := deref(item)
			if k := keys[strings.SplitN(fe.field, "[", 2)[0]]; k != nil {
				at = k
			}
			p.fail(at, join(path, fe.field), fe.msg)
			return
		}
		p.entries = append(p.entries, e)
	}
}

func (p *parser) replyField(r *Reply, key, path string, k, v *yaml.Node) {
	at := join(path, key)
	switch key {
	case "match":
		r.Match = p.str(v, at)
	case "times":
		r.Times = p.int(v, at)
		if r.Times <= 0 && p.err == nil {
			p.fail(v, at, fmt.Sprintf("must be a positive integer, got %d", r.Times))
		}
	case "text":
		r.Text = p.str(v, at)
	case "json":
		if err := v.Decode(&r.JSON); err != nil {
			p.fail(v, at, err.Error())
		}
	case "tool_calls":
		r.ToolCalls = p.toolCalls(v, at)
	case "error":
		r.Error = p.str(v, at)
	case "status":
		r.Status = p.int(v, at)
	case "usage":
		r.Usage = p.usage(v, at)
	case "finish_reason":
		r.FinishReason = p.finishReason(v, at)
	case "delay":
		r.Delay = p.duration(v, at)
	default:
		p.fail(k, at, "unknown key; want match, times, text, json, tool_calls, error, status, usage, finish_reason or delay")
	}
}

func (p *parser) toolCalls(n *yaml.Node, path string) []ToolCall {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, path, "want a list of tool calls")
		return nil
	}
	calls := make([]ToolCall, 0, len(n.Content))
	for i, item := range n.Content {
		at := fmt.Sprintf("%s[%d]", path, i)
		var c ToolCall
		p.mapping(item, at, func(key string, k, v *yaml.Node) {
			switch key {
			case "id":
				c.ID = p.str(v, join(at, key))
			case "name":
				c.Name = p.str(v, join(at, key))
			case "arguments":
				if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
					c.Arguments = v.Value // JSON text, used verbatim
				} else if err := v.Decode(&c.Arguments); err != nil {
					p.fail(v, join(at, key), err.Error())
				}
			default:
				p.fail(k, join(at, key), "unknown key; want id, name or arguments")
			}
		})
		if c.Name == "" && p.err == nil {
			p.fail(deref(item), join(at, "name"), "missing tool name")
		}
		calls = append(calls, c)
	}
	return calls
}

func (p *parser) usage(n *yaml.Node, path string) *llm.Usage {
	u := &llm.Usage{}
	p.mapping(n, path, func(key string, k, v *yaml.Node) {
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
			p.fail(k, join(path, key), "unknown key; want input_tokens, output_tokens, cached_input_tokens, cache_creation_tokens or reasoning_tokens")
			return
		}
		if *dst = int64(p.int(v, join(path, key))); *dst < 0 && p.err == nil {
			p.fail(v, join(path, key), "must not be negative")
		}
	})
	return u
}

func (p *parser) finishReason(n *yaml.Node, path string) llm.FinishReason {
	s := llm.FinishReason(p.str(n, path))
	switch s {
	case llm.FinishStop, llm.FinishLength, llm.FinishToolCalls, llm.FinishContentFilter, llm.FinishError, llm.FinishOther:
		return s
	}
	if p.err == nil {
		p.fail(n, path, fmt.Sprintf("unknown finish reason %q; want stop, length, tool_calls, content_filter, error or other", s))
	}
	return ""
}

// str reads a scalar as text, as written (so `text: yes` is "yes").
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

func (p *parser) bool(n *yaml.Node, path string) bool {
	var v bool
	if n.Kind != yaml.ScalarNode || n.Decode(&v) != nil {
		p.fail(n, path, fmt.Sprintf("want true or false, got %q", n.Value))
	}
	return v
}

// duration reads a Go duration ("250ms") or a number of seconds.
func (p *parser) duration(n *yaml.Node, path string) time.Duration {
	if n.Kind == yaml.ScalarNode {
		if d, err := time.ParseDuration(n.Value); err == nil {
			return d
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f >= 0 && f < 1e9 {
			return time.Duration(f * float64(time.Second))
		}
	}
	p.fail(n, path, fmt.Sprintf("want a duration such as 250ms or a number of seconds, got %q", n.Value))
	return 0
}
