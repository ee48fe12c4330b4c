package cel

import (
	"slices"
	"strings"

	"cel.dev/cel-go/common/ast"
)

// rootRef is one free identifier of an expression and where it first appears.
type rootRef struct {
	name   string
	offset int // in code points from the start of the parsed source
}

// rootWalker collects the free identifiers of a parsed expression, CrewAI's
// "roots" (spec 2.3): every identifier that is not a function name and not a
// variable bound by a comprehension macro around it. A struct literal's type
// name counts by its first segment, as celpy sees it as a value.
type rootWalker struct {
	info    *ast.SourceInfo
	locals  []string
	roots   []rootRef
	outputs []string // fields read as outputs.<name> or outputs['name']
}

func collectRoots(a *ast.AST) *rootWalker {
	w := &rootWalker{info: a.SourceInfo()}
	w.walk(a.Expr())
	return w
}

func (w *rootWalker) isLocal(name string) bool {
	return slices.Contains(w.locals, name)
}

func (w *rootWalker) add(name string, id int64) {
	name = strings.TrimPrefix(name, ".")
	if name == "" || w.isLocal(name) {
		return
	}
	off := 0
	if rng, ok := w.info.GetOffsetRange(id); ok {
		off = int(rng.Start)
	}
	for i, r := range w.roots {
		if r.name == name {
			w.roots[i].offset = min(r.offset, off)
			return
		}
	}
	w.roots = append(w.roots, rootRef{name: name, offset: off})
}

func (w *rootWalker) addOutput(name string) {
	if !slices.Contains(w.outputs, name) {
		w.outputs = append(w.outputs, name)
	}
}

// outputsOperand reports whether e is the free identifier outputs.
func (w *rootWalker) outputsOperand(e ast.Expr) bool {
	return e.Kind() == ast.IdentKind && strings.TrimPrefix(e.AsIdent(), ".") == RootOutputs && !w.isLocal(RootOutputs)
}

func (w *rootWalker) walk(e ast.Expr) {
	switch e.Kind() {
	case ast.IdentKind:
		w.add(e.AsIdent(), e.ID())
	case ast.SelectKind:
		sel := e.AsSelect()
		if w.outputsOperand(sel.Operand()) {
			w.addOutput(sel.FieldName())
		}
		w.walk(sel.Operand())
	case ast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			w.walk(call.Target())
		}
		args := call.Args()
		if call.FunctionName() == "_[_]" && len(args) == 2 && w.outputsOperand(args[0]) &&
			args[1].Kind() == ast.LiteralKind {
			if s, ok := args[1].AsLiteral().Value().(string); ok {
				w.addOutput(s)
			}
		}
		for _, arg := range args {
			w.walk(arg)
		}
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			w.walk(el)
		}
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			me := entry.AsMapEntry()
			w.walk(me.Key())
			w.walk(me.Value())
		}
	case ast.StructKind:
		st := e.AsStruct()
		name, _, _ := strings.Cut(strings.TrimPrefix(st.TypeName(), "."), ".")
		w.add(name, e.ID())
		for _, f := range st.Fields() {
			w.walk(f.AsStructField().Value())
		}
	case ast.ComprehensionKind:
		comp := e.AsComprehension()
		w.walk(comp.IterRange())
		w.walk(comp.AccuInit())
		saved := len(w.locals)
		w.locals = append(w.locals, comp.AccuVar())
		w.walk(comp.Result())
		w.locals = append(w.locals, comp.IterVar())
		if comp.HasIterVar2() {
			w.locals = append(w.locals, comp.IterVar2())
		}
		w.walk(comp.LoopCondition())
		w.walk(comp.LoopStep())
		w.locals = w.locals[:saved]
	}
}

// sortedNames returns the root names, sorted.
func (w *rootWalker) sortedNames() []string {
	names := make([]string, len(w.roots))
	for i, r := range w.roots {
		names[i] = r.name
	}
	slices.Sort(names)
	return names
}
