package cel

import (
	"strings"
	"unicode/utf8"

	celgo "cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// Beyond parsing and roots, CheckExpr reports what is wrong whatever the
// flow's data: state, outputs and item are dynamic, so the type checker
// only sees the types of literals and of what functions return, and a
// part of an expression that reads no variable has one value, which the
// checker can compute. Only what certainly fails is reported:
//
//   - unknown functions (item.upper());
//   - calls no overload accepts (size(1), 1 + 'a', 'a'.x, 1 && true),
//     except comparisons, equality, in and a conditional with a bool
//     condition, which cel-go evaluates across types at run time;
//   - constant parts that fail when evaluated (int('abc'), 1 / 0,
//     matches with an invalid pattern).

// checkStatic type-checks a parsed expression whose roots are allowed and
// evaluates its constant parts. text is the expression, found at byte
// offset off of the checked string.
func (e *Env) checkStatic(src, text string, off int, parsed *celgo.Ast) []Problem {
	var problems []Problem
	if !e.mayMistype(parsed.NativeRep().Expr()) {
		return constantProblems(src, text, off, parsed.NativeRep())
	}
	if _, iss := e.env.Check(parsed); iss != nil && iss.Err() != nil {
		native := parsed.NativeRep()
		for _, ce := range iss.Errors() {
			code, ok := typeProblem(native, ce.ExprID, ce.Message)
			if !ok {
				continue
			}
			at := off + lineColumnOffset(text, ce.Location.Line(), ce.Location.Column())
			if x, found := findExpr(native.Expr(), ce.ExprID); found && x.Kind() == ast.CallKind {
				if r, ok := native.SourceInfo().GetOffsetRange(x.ID()); ok {
					at = off + runeOffset(text, nameStart(text, x, int(r.Start)))
				}
			}
			problems = append(problems, Problem{Message: typeText(code, src, text, ce.Message), Code: code, Offset: at})
		}
		if len(problems) > 0 {
			return problems
		}
	}
	return constantProblems(src, text, off, parsed.NativeRep())
}

// typeProblem classifies a checker error at node id: the problem code, or
// false when the expression may still work at run time.
func typeProblem(a *ast.AST, id int64, msg string) (string, bool) {
	if strings.HasPrefix(msg, "undeclared reference to ") {
		return CodeUnknownFunction, true
	}
	switch {
	case strings.HasPrefix(msg, "found no matching overload for "):
	case strings.HasPrefix(msg, "expected type "), strings.Contains(msg, "does not support field selection"):
		return CodeType, true
	default:
		return "", false
	}
	e, found := findExpr(a.Expr(), id)
	if !found || e.Kind() != ast.CallKind {
		return CodeType, true
	}
	switch e.AsCall().FunctionName() {
	case operators.Equals, operators.NotEquals, operators.Less, operators.LessEquals,
		operators.Greater, operators.GreaterEquals, operators.In:
		return "", false
	case operators.Conditional:
		// The branches may differ in type; only a condition that cannot
		// be a bool fails.
		_, args, _ := strings.Cut(msg, " applied to '(")
		if strings.HasPrefix(args, "bool,") || strings.HasPrefix(args, "dyn,") {
			return "", false
		}
	}
	return CodeType, true
}

// findExpr returns the node of e with the given id.
func findExpr(e ast.Expr, id int64) (ast.Expr, bool) {
	var found ast.Expr
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if found == nil && x.ID() == id {
			found = x
		}
	}))
	return found, found != nil
}

func typeText(code, src, expr, detail string) string {
	var b strings.Builder
	if code == CodeUnknownFunction {
		b.WriteString("unknown CEL function at ")
	} else {
		b.WriteString("CEL type error at ")
	}
	b.WriteString(src)
	b.WriteString(": ")
	b.WriteString(pyjson.QuoteRepr(expr))
	b.WriteString(": ")
	b.WriteString(detail)
	if code == CodeUnknownFunction {
		b.WriteString(". The functions are cel-go's standard library and the ext string functions (lowerAscii, upperAscii, trim, split, replace, format, ...)")
	}
	return b.String()
}

// nameStart returns where the call x starts when cel-go places it at the
// parenthesis after the function's name (at, in code points): at the name.
// For other nodes it returns at.
func nameStart(text string, x ast.Expr, at int) int {
	if x.Kind() != ast.CallKind {
		return at
	}
	name := x.AsCall().FunctionName()
	n := utf8.RuneCountInString(name)
	if n == 0 || at < n || !isIdentStart(name[0]) {
		return at
	}
	from := runeOffset(text, at-n)
	if strings.HasPrefix(text[from:], name) {
		return at - n
	}
	return at
}

// children returns the direct subexpressions of e.
func children(e ast.Expr) []ast.Expr {
	switch e.Kind() {
	case ast.SelectKind:
		return []ast.Expr{e.AsSelect().Operand()}
	case ast.CallKind:
		call := e.AsCall()
		var out []ast.Expr
		if call.IsMemberFunction() {
			out = append(out, call.Target())
		}
		return append(out, call.Args()...)
	case ast.ListKind:
		return e.AsList().Elements()
	case ast.MapKind:
		var out []ast.Expr
		for _, entry := range e.AsMap().Entries() {
			me := entry.AsMapEntry()
			out = append(out, me.Key(), me.Value())
		}
		return out
	case ast.ComprehensionKind:
		comp := e.AsComprehension()
		return []ast.Expr{comp.IterRange(), comp.AccuInit(), comp.LoopCondition(), comp.LoopStep(), comp.Result()}
	}
	return nil
}
