package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/schema"
)

// scope is where an action runs: its method and, inside each, the item and
// the outputs of earlier steps for that item.
type scope struct {
	method  string
	item    any
	hasItem bool
	local   map[string]any
}

// eval evaluates a compiled CEL program against the run's data. The run's
// lock is held throughout, so the run's one set of variables serves every
// evaluation: evaluation does not keep it, and a set per evaluation would
// cost an allocation each (BenchmarkW1Chain10 declarative evaluates ten a
// run).
func (r *run) eval(ctx context.Context, p *cel.Program, sc *scope) (any, error) {
	r.mu.Lock()
	v := &r.celVars
	*v = cel.Vars{State: r.state(), Outputs: r.outputsFor(sc), Item: sc.item, HasItem: sc.hasItem}
	out, err := p.Eval(ctx, v)
	*v = cel.Vars{}
	r.mu.Unlock()
	return out, err
}

// render renders compiled templates against the run's data, as eval does.
func (r *run) render(ctx context.Context, t *cel.Value, sc *scope) (any, error) {
	r.mu.Lock()
	v := &r.celVars
	*v = cel.Vars{State: r.state(), Outputs: r.outputsFor(sc), Item: sc.item, HasItem: sc.hasItem}
	out, err := t.Render(ctx, v)
	*v = cel.Vars{}
	r.mu.Unlock()
	return out, err
}

// state returns the run's state as JSON data; r.mu must be held.
func (r *run) state() map[string]any { return r.stateHandle.settled() }

// vars returns the CEL variables of sc; r.mu must be held.
func (r *run) vars(sc *scope) *cel.Vars {
	return &cel.Vars{State: r.state(), Outputs: r.outputsFor(sc), Item: sc.item, HasItem: sc.hasItem}
}

// outputsFor returns the outputs visible in sc; r.mu must be held.
func (r *run) outputsFor(sc *scope) map[string]any {
	if len(sc.local) == 0 {
		return r.res.Outputs
	}
	m := maps.Clone(r.res.Outputs)
	if m == nil {
		m = make(map[string]any, len(sc.local))
	}
	maps.Copy(m, sc.local)
	return m
}

func (e *Engine) compileAction(def *Definition, method string, a *Action) (execFn, error) {
	if a == nil {
		return nil, errors.New("the method has no action")
	}
	switch a.Call {
	case CallExpression:
		p, err := e.env.Compile(a.Expr)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, r *run, sc *scope, _ any) (any, error) {
			return r.eval(ctx, p, sc)
		}, nil
	case CallCode:
		return e.compileCode(a)
	case CallTool:
		return e.compileTool(a)
	case CallEach:
		return e.compileEach(def, method, a)
	case CallScript:
		if !e.scripts {
			return nil, ErrScriptsDisabled
		}
		return e.compileScript(a), nil
	case CallAgent:
		return e.compileAgent(def, method, a)
	case CallCrew:
		return e.compileCrew(def, method, a)
	}
	return nil, fmt.Errorf("unknown call %q", a.Call)
}

func (e *Engine) compileWith(with map[string]any) (*cel.Value, error) {
	if with == nil {
		return nil, nil
	}
	return e.env.CompileValue(with)
}

func (e *Engine) compileCode(a *Action) (execFn, error) {
	h := a.Func
	if h == nil {
		var ok bool
		if h, ok = e.handler(a.Ref); !ok {
			return nil, checkRef(a.Ref)
		}
	}
	with, err := e.compileWith(a.With)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, r *run, sc *scope, trigger any) (out any, err error) {
		in := Input{Method: sc.method, Trigger: trigger, Item: sc.item, State: r.stateHandle, Memory: r.mem}
		if with != nil {
			args, err := r.render(ctx, with, sc)
			if err != nil {
				return nil, err
			}
			in.Args, _ = args.(map[string]any)
		}
		defer handlerPanic(&out, &err)
		return h(ctx, in)
	}, nil
}

func (e *Engine) compileTool(a *Action) (execFn, error) {
	t, ok := e.tool(a.Ref)
	if !ok {
		if err := refFormat(a.Ref); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("unresolvable do ref '%s' (no tool is registered under it; use flow.WithToolRef(%q, tool) or flow.WithTools)", a.Ref, a.Ref)
	}
	spec := t.Spec()
	var argSchema *schema.Schema
	if len(spec.Parameters) > 0 {
		s, err := schema.Compile(spec.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q has an invalid argument schema: %w", spec.Name, err)
		}
		argSchema = s
	}
	with, err := e.compileWith(a.With)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, r *run, sc *scope, _ any) (any, error) {
		args := map[string]any{}
		if with != nil {
			v, err := r.render(ctx, with, sc)
			if err != nil {
				return nil, err
			}
			args, _ = v.(map[string]any)
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("tool %q: arguments are not JSON: %w", spec.Name, err)
		}
		if argSchema != nil {
			if err := argSchema.Validate(args); err != nil {
				return nil, fmt.Errorf("tool %q: arguments do not match its schema: %w", spec.Name, err)
			}
		}
		return t.Call(ctx, raw)
	}, nil
}

// handlerPanic, deferred around a code handler, turns its panic into an
// error so that one bad handler fails its method instead of the process
// (a panic on a branch's goroutine could not be recovered by the caller
// of Run).
func handlerPanic(out *any, err *error) {
	if p := recover(); p != nil {
		*out, *err = nil, fmt.Errorf("code handler panicked: %v", p)
	}
}

// errEachNotList and errIfNotBool carry CrewAI's messages.
var (
	errEachNotList = errors.New("each.in must evaluate to an array")
	errIfNotBool   = errors.New("if expression must evaluate to a boolean")
)

type cstep struct {
	name string
	cond *cel.Program
	run  execFn
}

func (e *Engine) compileEach(def *Definition, method string, a *Action) (execFn, error) {
	in, err := e.env.Compile(a.In)
	if err != nil {
		return nil, err
	}
	steps := make([]cstep, 0, len(a.Steps))
	for _, s := range a.Steps {
		cs := cstep{name: s.Name}
		if s.If != nil {
			if cs.cond, err = e.env.Compile(*s.If); err != nil {
				return nil, fmt.Errorf("step %q: %w", s.Name, err)
			}
		}
		if cs.run, err = e.compileAction(def, method, s.Action); err != nil {
			return nil, fmt.Errorf("step %q: %w", s.Name, err)
		}
		steps = append(steps, cs)
	}
	return func(ctx context.Context, r *run, sc *scope, _ any) (any, error) {
		v, err := r.eval(ctx, in, &scope{method: sc.method})
		if err != nil {
			return nil, fmt.Errorf("each.in: %w", err)
		}
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%w (got %s)", errEachNotList, typeName(v))
		}
		results := make([]any, 0, len(items))
		for i, item := range items {
			local := &scope{method: sc.method, item: item, hasItem: true, local: map[string]any{}}
			var last any
			for _, s := range steps {
				if s.cond != nil {
					ok, err := r.eval(ctx, s.cond, local)
					if err != nil {
						return nil, stepError(s.name, i, err)
					}
					b, isBool := ok.(bool)
					if !isBool {
						return nil, stepError(s.name, i, fmt.Errorf("%w (got %s)", errIfNotBool, typeName(ok)))
					}
					if !b {
						continue
					}
				}
				out, err := s.run(ctx, r, local, nil)
				if err != nil {
					return nil, stepError(s.name, i, err)
				}
				out = normalize(out)
				local.local[s.name] = out
				last = out
			}
			results = append(results, last)
		}
		return results, nil
	}, nil
}

// stepError says which step of an each action failed, and on which item
// (counted from 0, as state.items[i] counts).
func stepError(step string, item int, err error) error {
	return fmt.Errorf("step %q (item %d): %w", step, item, err)
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case int64:
		return "an int"
	case float64:
		return "a double"
	case bool:
		return "a bool"
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T", v)
}
