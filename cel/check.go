package cel

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// defaultEnv serves the package-level checks; an Env is immutable apart from
// its caches, so one can be shared.
var defaultEnv = sync.OnceValues(func() (*Env, error) { return NewEnv() })

// CheckExpr validates a full-CEL field (expression.expr, each.in, a step's
// if) as CrewAI does at load time (spec 2.3): the text must not be empty
// after stripping and unwrapping ${...}, must parse, and may read only the
// allowed roots. Beyond CrewAI, it reports what fails whatever the data:
// unknown functions, calls that no overload accepts, and parts that read no
// variable and fail when evaluated (see checkStatic). src is the field's
// path, such as methods.m.do.expr; it appears in the messages. It returns
// nil when the field is valid.
func CheckExpr(src, expr string, allowed []string) []Problem {
	e, err := defaultEnv()
	if err != nil {
		return []Problem{{Message: err.Error(), Code: CodeInvalid}}
	}
	return e.CheckExpr(src, expr, allowed)
}

// CheckTemplate validates the ${...} expressions of a template string (spec
// 2.3, 3.7): scanning errors first, then each expression as CheckExpr does,
// with " (expression N)" appended to src when the string has more than one.
func CheckTemplate(src, s string, allowed []string) []Problem {
	e, err := defaultEnv()
	if err != nil {
		return []Problem{{Message: err.Error(), Code: CodeInvalid}}
	}
	return e.CheckTemplate(src, s, allowed)
}

// CheckValue validates every string inside v as a template, as CrewAI does
// for with maps: map values get src.key and list items src[i] as their
// paths. Keys are visited in sorted order.
func CheckValue(src string, v any, allowed []string) []Problem {
	e, err := defaultEnv()
	if err != nil {
		return []Problem{{Message: err.Error(), Code: CodeInvalid}}
	}
	return e.CheckValue(src, v, allowed)
}

// CheckExpr is the package-level CheckExpr using this environment's parser.
func (e *Env) CheckExpr(src, expr string, allowed []string) []Problem {
	text, off := unwrapExpr(expr)
	if text == "" {
		_, lead := pyStrip(expr)
		return []Problem{{Message: emptyExprText(src), Code: CodeEmpty, Offset: min(lead, len(expr))}}
	}
	return e.checkSource(src, text, off, allowed)
}

// CheckTemplate is the package-level CheckTemplate using this environment's parser.
func (e *Env) CheckTemplate(src, s string, allowed []string) []Problem {
	segs, cerr := scanTemplate(s)
	if cerr != nil {
		return []Problem{{Message: cerr.Message + " at " + src, Code: cerr.Code, Offset: cerr.Offset}}
	}
	n := 0
	for _, sg := range segs {
		if sg.expr {
			n++
		}
	}
	var problems []Problem
	i := 0
	for _, sg := range segs {
		if !sg.expr {
			continue
		}
		i++
		exprSrc := src
		if n > 1 {
			exprSrc = src + " (expression " + strconv.Itoa(i) + ")"
		}
		problems = append(problems, e.checkSource(exprSrc, sg.text, sg.offset, allowed)...)
	}
	return problems
}

// CheckValue is the package-level CheckValue using this environment's parser.
func (e *Env) CheckValue(src string, v any, allowed []string) []Problem {
	switch x := v.(type) {
	case string:
		return e.CheckTemplate(src, x, allowed)
	case map[string]any:
		var problems []Problem
		for _, k := range jsondata.SortedKeys(x) {
			problems = append(problems, e.CheckValue(src+"."+k, x[k], allowed)...)
		}
		return problems
	case map[string]string:
		var problems []Problem
		for _, k := range jsondata.SortedKeys(x) {
			problems = append(problems, e.CheckTemplate(src+"."+k, x[k], allowed)...)
		}
		return problems
	case []any:
		var problems []Problem
		for i, item := range x {
			problems = append(problems, e.CheckValue(src+"["+strconv.Itoa(i)+"]", item, allowed)...)
		}
		return problems
	case []string:
		var problems []Problem
		for i, item := range x {
			problems = append(problems, e.CheckTemplate(src+"["+strconv.Itoa(i)+"]", item, allowed)...)
		}
		return problems
	}
	return nil
}

// checkSource parses a stripped expression found at byte offset off and
// checks its roots.
func (e *Env) checkSource(src, text string, off int, allowed []string) []Problem {
	key := checkKey(src, text, off, allowed)
	if ps, ok := e.checks.Get(key); ok {
		return slices.Clone(ps)
	}
	ps := e.checkUncached(src, text, off, allowed)
	e.checks.Add(key, ps)
	return slices.Clone(ps)
}

// checkKey keys a check's result: everything checkSource's problems
// depend on.
func checkKey(src, text string, off int, allowed []string) string {
	var b strings.Builder
	b.Grow(len(src) + len(text) + 16 + 8*len(allowed))
	b.WriteString(src)
	b.WriteByte(0)
	b.WriteString(text)
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(off))
	for _, a := range allowed {
		b.WriteByte(0)
		b.WriteString(a)
	}
	return b.String()
}

// checkUncached is checkSource without the cache.
func (e *Env) checkUncached(src, text string, off int, allowed []string) []Problem {
	parsed, iss := e.env.Parse(text)
	if iss != nil && iss.Err() != nil {
		at := off
		if errs := iss.Errors(); len(errs) > 0 {
			at += lineColumnOffset(text, errs[0].Location.Line(), errs[0].Location.Column())
		}
		return []Problem{{Message: invalidText(src, text, iss.Err().Error()), Code: CodeInvalid, Offset: at}}
	}
	w := collectRoots(parsed.NativeRep())
	var unknown []string
	first := -1
	for _, r := range w.roots {
		if slices.Contains(allowed, r.name) {
			continue
		}
		unknown = append(unknown, r.name)
		if first < 0 || r.offset < first {
			first = r.offset
		}
	}
	if len(unknown) == 0 {
		return e.checkStatic(src, text, off, parsed)
	}
	slices.Sort(unknown)
	sortedAllowed := slices.Clone(allowed)
	slices.Sort(sortedAllowed)
	sortedAllowed = slices.Compact(sortedAllowed)
	return []Problem{{
		Message: unknownRootText(src, unknown, sortedAllowed),
		Code:    CodeUnknownRoot,
		Offset:  off + runeOffset(text, first),
	}}
}

// ExprRoots returns the sorted root identifiers a full-CEL field reads, or
// nil when it is empty or does not parse.
func ExprRoots(expr string) []string {
	w := exprWalker(expr)
	if w == nil {
		return nil
	}
	return w.sortedNames()
}

// ExprOutputs returns the sorted method names a full-CEL field reads as
// outputs.<name> or outputs['name'], or nil when it has none or does not parse.
func ExprOutputs(expr string) []string {
	w := exprWalker(expr)
	if w == nil {
		return nil
	}
	out := slices.Clone(w.outputs)
	slices.Sort(out)
	return out
}

// TemplateOutputs is ExprOutputs for every expression of a template string.
func TemplateOutputs(s string) []string {
	segs, cerr := scanTemplate(s)
	if cerr != nil {
		return nil
	}
	var out []string
	for _, sg := range segs {
		if sg.expr {
			if w := sourceWalker(sg.text); w != nil {
				out = append(out, w.outputs...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func exprWalker(expr string) *rootWalker {
	text, _ := unwrapExpr(expr)
	if text == "" {
		return nil
	}
	return sourceWalker(text)
}

func sourceWalker(text string) *rootWalker {
	e, err := defaultEnv()
	if err != nil {
		return nil
	}
	parsed, iss := e.env.Parse(text)
	if iss != nil && iss.Err() != nil {
		return nil
	}
	return collectRoots(parsed.NativeRep())
}
