package cel

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	celgo "cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/parser"

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

// foldLimits bound the evaluation of constant parts at validation: a
// constant that needs more is not reported (it may well be right), and a
// definition full of them cannot make validation slow.
var foldLimits = Limits{Cost: 10_000, Size: 64 << 10}

// foldEnv evaluates constant parts at validation.
var foldEnv = sync.OnceValues(func() (*Env, error) { return NewEnv(WithLimits(foldLimits)) })

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

// untypedCalls are the calls whose checker errors are not reported (see
// typeProblem), so they need no type check of their own; the conditional
// is looked at apart.
var untypedCalls = map[string]bool{
	operators.Equals: true, operators.NotEquals: true, operators.Less: true, operators.LessEquals: true,
	operators.Greater: true, operators.GreaterEquals: true, operators.In: true, operators.Conditional: true,
}

// mayMistype reports whether the type checker may find a problem to
// report in x: a function it does not know, or a call that an operand of
// a known type may keep from matching any overload. Most operands read a
// variable (state.x, item.y[0]) and match anything; when no call is in
// doubt, the check, a good part of the cost of loading, is skipped.
func (e *Env) mayMistype(x ast.Expr) bool {
	found := false
	ast.PreOrderVisit(x, ast.NewExprVisitor(func(n ast.Expr) {
		if found {
			return
		}
		switch n.Kind() {
		case ast.CallKind:
			found = e.callMayMistype(n)
		case ast.SelectKind:
			found = typed(n.AsSelect().Operand())
		}
	}))
	return found
}

// callMayMistype is mayMistype for one call.
func (e *Env) callMayMistype(n ast.Expr) bool {
	call := n.AsCall()
	name := call.FunctionName()
	sigs, known := e.signatures()[name]
	if !known {
		return true
	}
	operands := children(n)
	if name == operators.Conditional {
		return typed(operands[0]) && !boolResult(operands[0])
	}
	if untypedCalls[name] {
		return false
	}
	literals := 0
	for _, o := range operands {
		switch {
		case o.Kind() == ast.IdentKind && strings.HasPrefix(o.AsIdent(), "@"):
			// Comprehension macros add steps such as @result + [x].
			return false
		case o.Kind() == ast.LiteralKind:
			literals++
		case typed(o):
			return true
		}
	}
	if literals == 0 {
		return false
	}
	if literals == len(operands) {
		return true
	}
	// Some operands are literals, the others variables: the call is fine
	// when an overload takes each literal where it stands.
	for _, sg := range sigs {
		if sg.member != call.IsMemberFunction() || len(sg.args) != len(operands) {
			continue
		}
		fits := true
		for i, o := range operands {
			if o.Kind() == ast.LiteralKind && !takes(sg.args[i], o.AsLiteral()) {
				fits = false
				break
			}
		}
		if fits {
			return false
		}
	}
	return true
}

// signature is the shape of one overload: a member function or not, and
// the kinds of its arguments (the receiver first).
type signature struct {
	member bool
	args   []types.Kind
}

// signatures lists the overloads of every function of the environment.
func (e *Env) signatures() map[string][]signature {
	return e.sigs()
}

func readSignatures(env *celgo.Env) map[string][]signature {
	out := map[string][]signature{}
	for name, fn := range env.Functions() {
		for _, o := range fn.OverloadDecls() {
			sg := signature{member: o.IsMemberFunction()}
			for _, t := range o.ArgTypes() {
				sg.args = append(sg.args, t.Kind())
			}
			out[name] = append(out[name], sg)
		}
	}
	return out
}

// takes reports whether an argument of kind k accepts the literal v.
func takes(k types.Kind, v ref.Val) bool {
	switch k {
	case types.DynKind, types.AnyKind, types.TypeParamKind:
		return true
	}
	switch v.(type) {
	case types.Int:
		return k == types.IntKind
	case types.Uint:
		return k == types.UintKind
	case types.Double:
		return k == types.DoubleKind
	case types.String:
		return k == types.StringKind
	case types.Bytes:
		return k == types.BytesKind
	case types.Bool:
		return k == types.BoolKind
	case types.Null:
		return k == types.NullTypeKind
	}
	return false
}

// boolResult reports whether e is a bool literal or a call that gives a
// bool (a comparison or a logical operator).
func boolResult(e ast.Expr) bool {
	switch e.Kind() {
	case ast.LiteralKind:
		_, ok := e.AsLiteral().(types.Bool)
		return ok
	case ast.CallKind:
		switch e.AsCall().FunctionName() {
		case operators.Equals, operators.NotEquals, operators.Less, operators.LessEquals,
			operators.Greater, operators.GreaterEquals, operators.In,
			operators.LogicalAnd, operators.LogicalOr, operators.LogicalNot:
			return true
		}
	}
	return false
}

// typed reports whether the checker may know the type of e: anything but
// a variable, a field of one, or an element of one.
func typed(e ast.Expr) bool {
	switch e.Kind() {
	case ast.IdentKind:
		return false
	case ast.SelectKind:
		return typed(e.AsSelect().Operand())
	case ast.CallKind:
		call := e.AsCall()
		if call.FunctionName() == operators.Index && len(call.Args()) == 2 {
			return typed(call.Args()[0])
		}
	}
	return true
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

// eval evaluates a constant part, within foldLimits; a part that needs
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
