package cel

import (
	"context"
	"errors"

	celgo "cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"
)

// Vars are the values an expression reads: state, outputs and, inside an
// each step, item. The maps are read, never written.
type Vars struct {
	// State is the flow state (a serialised copy, id included).
	State map[string]any
	// Outputs maps method names (and, inside each, step names) to their last output.
	Outputs map[string]any
	// Item is the current element inside an each step; read only when HasItem.
	Item any
	// HasItem says whether item is bound. Outside each steps it is not, and
	// reading item is an error.
	HasItem bool
	// Extra holds the variables declared with [WithVariables], by name.
	Extra map[string]any
}

// activation exposes Vars to cel-go without building a map per evaluation.
type activation Vars

// ResolveName implements interpreter.Activation.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case RootState:
		return a.State, true
	case RootOutputs:
		return a.Outputs, true
	case RootItem:
		if a.HasItem {
			return a.Item, true
		}
		return nil, false
	}
	v, ok := a.Extra[name]
	return v, ok
}

// Parent implements interpreter.Activation.
func (a *activation) Parent() interpreter.Activation { return nil }

// Program is a compiled expression. It is safe for concurrent use.
type Program struct {
	expr   string
	prg    celgo.Program
	loops  bool // has a comprehension, so a long run can be cancelled
	limits Limits
}

// Expr returns the expression source the program was compiled from (stripped
// and unwrapped).
func (p *Program) Expr() string { return p.expr }

// Eval evaluates the program against v and returns the result as JSON data
// (spec 3.8). Failures are *EvalError.
func (p *Program) Eval(ctx context.Context, v *Vars) (any, error) {
	val, err := p.eval(ctx, v)
	if err != nil {
		return nil, err
	}
	out, err := toJSON(val, p.limits.Size)
	if err != nil {
		return nil, &EvalError{Expr: p.expr, Cause: err}
	}
	return out, nil
}

// eval runs the program and returns the raw CEL value.
func (p *Program) eval(ctx context.Context, v *Vars) (ref.Val, error) {
	if v == nil {
		v = &Vars{}
	}
	act := (*activation)(v)
	var (
		out ref.Val
		err error
	)
	if ctx == nil {
		ctx = context.Background()
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, &EvalError{Expr: p.expr, Cause: cerr}
	}
	if p.loops && ctx.Done() != nil {
		out, _, err = p.prg.ContextEval(ctx, act)
	} else {
		out, _, err = p.prg.Eval(act)
	}
	if err != nil {
		var cancel interpreter.EvalCancelledError
		if errors.As(err, &cancel) && cancel.Cause == interpreter.CostLimitExceeded {
			err = &LimitError{Err: ErrCostLimit, Limit: p.limits.Cost}
		}
		return nil, &EvalError{Expr: p.expr, Cause: err}
	}
	return out, nil
}

// hasComprehension reports whether e contains a comprehension (a macro such
// as all, exists, map or filter).
func hasComprehension(e ast.Expr) bool {
	found := false
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() == ast.ComprehensionKind {
			found = true
		}
	}))
	return found
}
