package cel

import (
	"strings"

	celgo "cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

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
