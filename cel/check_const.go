package cel

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"sync"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/parser"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// foldEnv evaluates constant parts at validation, within small limits: a
// constant that needs more is not reported (it may well be right), and a
// definition full of them cannot make validation slow.
var foldEnv = sync.OnceValues(func() (*Env, error) {
	return NewEnv(WithLimits(Limits{Cost: 10_000, Size: 64 << 10}))
})

// constantProblems evaluates the largest parts of the expression that read
// no variable and contain a call, and reports each that fails, at its
// innermost failing part. It also checks the patterns of matches calls.
func constantProblems(src, text string, off int, a *ast.AST) []Problem {
	c := &constants{info: a.SourceInfo(), constant: map[int64]bool{}}
	c.mark(a.Expr())
	var problems []Problem
	c.visitMaximal(a.Expr(), func(x ast.Expr) {
		if p, ok := c.failure(x); ok {
			problems = append(problems, c.problem(src, text, off, a.Expr(), p))
		}
	})
	ast.PreOrderVisit(a.Expr(), ast.NewExprVisitor(func(x ast.Expr) {
		if p, ok := badPattern(x); ok && !c.constant[x.ID()] {
			problems = append(problems, c.problem(src, text, off, a.Expr(), p))
		}
	}))
	return problems
}

// constants finds the constant parts of one expression.
type constants struct {
	info     *ast.SourceInfo
	constant map[int64]bool // node id -> reads no variable and holds no comprehension
}

// failedPart is a constant part whose evaluation fails.
type failedPart struct {
	node   ast.Expr
	detail string
}

// mark records which nodes are constant and returns whether e is.
func (c *constants) mark(e ast.Expr) bool {
	constant := true
	switch e.Kind() {
	case ast.LiteralKind:
	case ast.IdentKind, ast.ComprehensionKind, ast.StructKind, ast.UnspecifiedExprKind:
		constant = false
		if e.Kind() == ast.ComprehensionKind {
			comp := e.AsComprehension()
			for _, x := range []ast.Expr{comp.IterRange(), comp.AccuInit(), comp.LoopCondition(), comp.LoopStep(), comp.Result()} {
				c.mark(x)
			}
		}
	case ast.SelectKind:
		constant = c.mark(e.AsSelect().Operand())
	case ast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			constant = c.mark(call.Target())
		}
		for _, arg := range call.Args() {
			constant = c.mark(arg) && constant
		}
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			constant = c.mark(el) && constant
		}
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			me := entry.AsMapEntry()
			constant = c.mark(me.Key()) && constant
			constant = c.mark(me.Value()) && constant
		}
	}
	c.constant[e.ID()] = constant
	return constant
}

// visitMaximal calls fn for each constant call or select not inside a
// larger constant part.
func (c *constants) visitMaximal(e ast.Expr, fn func(ast.Expr)) {
	if c.constant[e.ID()] {
		if e.Kind() == ast.CallKind || e.Kind() == ast.SelectKind || hasCall(e) {
			fn(e)
		}
		return
	}
	for _, child := range children(e) {
		c.visitMaximal(child, fn)
	}
}

// failure evaluates the constant part e and, when it fails, returns its
// innermost failing part.
func (c *constants) failure(e ast.Expr) (failedPart, bool) {
	err := c.eval(e)
	if err == nil {
		return failedPart{}, false
	}
	for _, child := range children(e) {
		if c.constant[child.ID()] && hasCall(child) {
			if p, ok := c.failure(child); ok {
				return p, true
			}
		}
	}
	return failedPart{node: e, detail: err.Error()}, true
}

// eval evaluates a constant part, within foldEnv's limits; a part that needs
// more is not counted as failing. It returns the failure.
func (c *constants) eval(e ast.Expr) error {
	text, err := parser.Unparse(e, c.info)
	if err != nil {
		return nil
	}
	env, err := foldEnv()
	if err != nil {
		return nil
	}
	return env.evalConstant(text)
}

// evalConstant evaluates an expression that reads no variable, without
// caching its program (validation sees texts once), and returns why it
// fails, or nil. cel-go evaluates some constant calls (conversions such as
// int('abc'), regular expressions) when it builds the program, so a
// program that cannot be built fails too.
func (e *Env) evalConstant(text string) error {
	parsed, iss := e.env.Parse(text)
	if iss != nil && iss.Err() != nil {
		return nil
	}
	a, checked := parsed, false
	if ck, ciss := e.env.Check(parsed); ciss == nil || ciss.Err() == nil {
		a, checked = ck, true
	}
	prg, err := e.env.Program(a, e.programOptions(a, checked)...)
	if err != nil {
		return err
	}
	p := &Program{expr: text, prg: prg, loops: hasComprehension(parsed.NativeRep().Expr()), limits: e.limits}
	_, err = p.Eval(context.Background(), nil)
	var ee *EvalError
	if err == nil || errors.Is(err, ErrCostLimit) || errors.Is(err, ErrSizeLimit) || !errors.As(err, &ee) {
		return nil
	}
	return ee.Cause
}

// problem reports a failing part of root at its first character.
func (c *constants) problem(src, text string, off int, root ast.Expr, p failedPart) Problem {
	part, err := parser.Unparse(p.node, c.info)
	if err != nil {
		part = "?"
	}
	start := -1
	ast.PreOrderVisit(p.node, ast.NewExprVisitor(func(x ast.Expr) {
		if r, ok := c.info.GetOffsetRange(x.ID()); ok {
			if at := nameStart(text, x, int(r.Start)); start < 0 || at < start {
				start = at
			}
		}
	}))
	msg := "CEL expression at " + src + " always fails: " + pyjson.QuoteRepr(text)
	if p.node.ID() != root.ID() {
		msg += ": the part " + pyjson.QuoteRepr(part) + " fails"
	}
	return Problem{Message: msg + ": " + p.detail, Code: CodeAlwaysFails, Offset: off + runeOffset(text, max(start, 0))}
}

// badPattern reports a matches call whose pattern is a string literal that
// is not a valid regular expression (RE2, as cel-go uses).
func badPattern(e ast.Expr) (failedPart, bool) {
	if e.Kind() != ast.CallKind {
		return failedPart{}, false
	}
	call := e.AsCall()
	args := call.Args()
	if call.FunctionName() != "matches" || len(args) == 0 {
		return failedPart{}, false
	}
	pattern := args[len(args)-1]
	if pattern.Kind() != ast.LiteralKind {
		return failedPart{}, false
	}
	s, ok := pattern.AsLiteral().Value().(string)
	if !ok {
		return failedPart{}, false
	}
	if _, err := regexp.Compile(s); err != nil {
		return failedPart{node: e, detail: "invalid regular expression " + strconv.Quote(s) + ": " + err.Error()}, true
	}
	return failedPart{}, false
}

// hasCall reports whether e holds a call or a field selection.
func hasCall(e ast.Expr) bool {
	found := false
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() == ast.CallKind || x.Kind() == ast.SelectKind {
			found = true
		}
	}))
	return found
}
