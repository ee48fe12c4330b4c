package cel

import (
	"context"
	"encoding/base64"
	"strconv"
	"unsafe"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

type templateKind uint8

const (
	literalTemplate templateKind = iota // no ${...}: the text as is
	typedTemplate                       // one ${...}, blank literals: the typed value
	textTemplate                        // anything else: concatenated text
)

// Template is a compiled string that may hold ${...} expressions (spec 3.7).
// It is safe for concurrent use.
type Template struct {
	text    string
	kind    templateKind
	literal any      // text, boxed once, for literalTemplate
	single  *Program // for typedTemplate
	parts   []part   // for textTemplate
	litLen  int      // total literal bytes, to size the output
}

// part is a literal (prog == nil) or an expression of a text template.
type part struct {
	lit  string
	prog *Program
}

// Text returns the template source.
func (t *Template) Text() string { return t.text }

// IsLiteral reports whether the template holds no expression, so Render
// returns the text unchanged.
func (t *Template) IsLiteral() bool { return t.kind == literalTemplate }

// Programs returns the compiled expressions of the template, in order.
func (t *Template) Programs() []*Program {
	switch t.kind {
	case typedTemplate:
		return []*Program{t.single}
	case textTemplate:
		var out []*Program
		for _, p := range t.parts {
			if p.prog != nil {
				out = append(out, p.prog)
			}
		}
		return out
	}
	return nil
}

// CompileTemplate compiles a template string. Compiled templates are cached
// by text. Errors are *CompileError, with CrewAI's texts.
func (e *Env) CompileTemplate(s string) (*Template, error) {
	if t, ok := e.templates.Get(s); ok {
		return t, nil
	}
	t, cerr := e.compileTemplate(s)
	if cerr != nil {
		return nil, cerr
	}
	return e.templates.Add(s, t), nil
}

func (e *Env) compileTemplate(s string) (*Template, *CompileError) {
	t := &Template{text: s}
	segs, cerr := scanTemplate(s)
	if cerr != nil {
		return nil, cerr
	}
	exprs := 0
	blank := true
	for _, sg := range segs {
		if sg.expr {
			exprs++
		} else if !isBlank(sg.text) {
			blank = false
		}
	}
	switch {
	case exprs == 0:
		t.kind = literalTemplate
		t.literal = s
	case exprs == 1 && blank:
		t.kind = typedTemplate
		for _, sg := range segs {
			if sg.expr {
				p, err := e.compileSource(sg.text)
				if err != nil {
					err.Offset += sg.offset
					return nil, err
				}
				t.single = p
			}
		}
	default:
		t.kind = textTemplate
		t.parts = make([]part, len(segs))
		for i, sg := range segs {
			if !sg.expr {
				t.parts[i].lit = sg.text
				t.litLen += len(sg.text)
				continue
			}
			p, err := e.compileSource(sg.text)
			if err != nil {
				err.Offset += sg.offset
				return nil, err
			}
			t.parts[i].prog = p
		}
	}
	return t, nil
}

// Render evaluates the template against v: the text unchanged when it has no
// expression, the typed value of a lone expression surrounded only by white
// space, and otherwise the concatenation of the literal text and each value
// (a string as is, null as "", anything else as Python's json.dumps writes it).
// Failures are *EvalError.
func (t *Template) Render(ctx context.Context, v *Vars) (any, error) {
	switch t.kind {
	case literalTemplate:
		return t.literal, nil
	case typedTemplate:
		return t.single.Eval(ctx, v)
	}
	buf := make([]byte, 0, t.litLen+16*len(t.parts))
	for _, p := range t.parts {
		if p.prog == nil {
			buf = append(buf, p.lit...)
			continue
		}
		val, err := p.prog.eval(ctx, v)
		if err != nil {
			return nil, err
		}
		buf, err = appendText(buf, val, p.prog.limits.Size)
		if err != nil {
			return nil, &EvalError{Expr: p.prog.expr, Cause: err}
		}
	}
	// buf is never written again, so it can back the string directly.
	return unsafe.String(unsafe.SliceData(buf), len(buf)), nil
}

// appendText appends the text a value takes in a mixed template.
func appendText(dst []byte, v ref.Val, limit int) ([]byte, error) {
	switch x := v.(type) {
	case types.String:
		return append(dst, x...), nil
	case types.Null:
		return dst, nil
	case types.Int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case types.Double:
		return pyjson.AppendFloat(dst, float64(x)), nil
	case types.Bool:
		return strconv.AppendBool(dst, bool(x)), nil
	case types.Bytes:
		return base64.StdEncoding.AppendEncode(dst, x), nil
	case types.Timestamp:
		return append(dst, timestampText(x.Time)...), nil
	case types.Duration:
		return append(dst, durationText(x.Duration)...), nil
	}
	out, err := toJSON(v, limit)
	if err != nil {
		return dst, err
	}
	if s, ok := out.(string); ok {
		return append(dst, s...), nil
	}
	return pyjson.AppendDumps(dst, out), nil
}
