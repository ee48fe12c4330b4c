package cel

import (
	"context"
	"strings"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// Value is compiled JSON data whose strings are templates, such as the with
// map of a tool or code action (spec 3.7). Maps and lists are walked; keys
// are not rendered; other values pass through. It is safe for concurrent use.
type Value struct {
	root *valueNode
}

// valueNode is one compiled node. A static node (no template below it) keeps
// the original value, which Render returns as is.
type valueNode struct {
	orig  any
	tmpl  *Template    // a string with an expression
	keys  []string     // a map with templates below it: its keys, sorted
	items []*valueNode // the map's values, or the list's items
	isMap bool
}

func (n *valueNode) static() bool { return n.tmpl == nil && n.items == nil }

// CompileValue compiles every string inside v as a template. The first
// template error is returned, as a *CompileError.
func (e *Env) CompileValue(v any) (*Value, error) {
	n, err := e.compileNode(v)
	if err != nil {
		return nil, err
	}
	return &Value{root: n}, nil
}

// IsStatic reports whether the value holds no template, so Render returns it
// unchanged.
func (v *Value) IsStatic() bool { return v.root.static() }

func (e *Env) compileNode(v any) (*valueNode, error) {
	n := &valueNode{orig: v}
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "${") {
			return n, nil
		}
		t, err := e.CompileTemplate(x)
		if err != nil {
			return nil, err
		}
		if !t.IsLiteral() {
			n.tmpl = t
		}
		return n, nil
	case map[string]any:
		return e.compileMap(n, jsondata.SortedKeys(x), func(k string) any { return x[k] })
	case map[string]string:
		return e.compileMap(n, jsondata.SortedKeys(x), func(k string) any { return x[k] })
	case []any:
		return e.compileList(n, len(x), func(i int) any { return x[i] })
	case []string:
		return e.compileList(n, len(x), func(i int) any { return x[i] })
	}
	return n, nil
}

func (e *Env) compileMap(n *valueNode, keys []string, get func(string) any) (*valueNode, error) {
	items := make([]*valueNode, len(keys))
	dynamic := false
	for i, k := range keys {
		c, err := e.compileNode(get(k))
		if err != nil {
			return nil, err
		}
		items[i] = c
		dynamic = dynamic || !c.static()
	}
	if dynamic {
		n.keys, n.items, n.isMap = keys, items, true
	}
	return n, nil
}

func (e *Env) compileList(n *valueNode, size int, get func(int) any) (*valueNode, error) {
	items := make([]*valueNode, size)
	dynamic := false
	for i := range size {
		c, err := e.compileNode(get(i))
		if err != nil {
			return nil, err
		}
		items[i] = c
		dynamic = dynamic || !c.static()
	}
	if dynamic {
		n.items = items
	}
	return n, nil
}

// Render renders every template inside the value against vars. A value with
// no template is returned as given to CompileValue, without allocating;
// otherwise maps and lists holding templates are rebuilt as map[string]any
// and []any, and parts without templates are shared with the original. Treat
// the result as read-only. Failures are *EvalError.
func (v *Value) Render(ctx context.Context, vars *Vars) (any, error) {
	return v.root.render(ctx, vars)
}

func (n *valueNode) render(ctx context.Context, vars *Vars) (any, error) {
	switch {
	case n.tmpl != nil:
		return n.tmpl.Render(ctx, vars)
	case n.items == nil:
		return n.orig, nil
	case n.isMap:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			r, err := n.items[i].render(ctx, vars)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	out := make([]any, len(n.items))
	for i, c := range n.items {
		r, err := c.render(ctx, vars)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}
