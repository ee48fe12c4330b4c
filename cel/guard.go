package cel

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	celgo "cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/functions"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
)

// The size limit is kept in two ways. Calls whose result can be a string,
// bytes, a list or a map are wrapped (sizedCall) and fail once the value
// is larger than the limit: a value grows at most a few times per call,
// so memory stays within a small multiple of the limit. Functions whose
// result can be far larger than their arguments, because a list may hold
// the same large string many times, are checked before they run
// (sizeGuards).

// sizedCall is a call whose result is checked against the size limit.
type sizedCall struct {
	interpreter.InterpretableCall
	limit int
}

// Eval implements interpreter.Interpretable.
func (c *sizedCall) Eval(a interpreter.Activation) ref.Val {
	return c.check(c.InterpretableCall.Eval(a))
}

// Exec implements interpreter.InterpretableV2.
func (c *sizedCall) Exec(f *interpreter.ExecutionFrame) ref.Val {
	return c.check(c.InterpretableCall.Exec(f))
}

func (c *sizedCall) check(v ref.Val) ref.Val {
	if what := tooLarge(v, c.limit); what != "" {
		return types.WrapErr(sizeError(c.limit, what))
	}
	return v
}

// tooLarge describes v when it is larger than limit, else returns "".
func tooLarge(v ref.Val, limit int) string {
	switch x := v.(type) {
	case types.String:
		if len(x) > limit {
			return fmt.Sprintf("a string of %d bytes", len(x))
		}
	case types.Bytes:
		if len(x) > limit {
			return fmt.Sprintf("bytes of length %d", len(x))
		}
	case traits.Lister:
		if n, _ := x.Size().(types.Int); int64(n) > int64(limit/ElementBytes) {
			return fmt.Sprintf("a list of %d elements", n)
		}
	case traits.Mapper:
		if n, _ := x.Size().(types.Int); int64(n) > int64(limit/ElementBytes) {
			return fmt.Sprintf("a map of %d entries", n)
		}
	}
	return ""
}

// sizeDecorator wraps the calls for which sized reports true.
func sizeDecorator(limit int, sized func(id int64) bool) celgo.ProgramOption {
	return celgo.CustomDecoratorV2(func(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
		if call, ok := i.(interpreter.InterpretableCall); ok && sized(call.ID()) {
			return &sizedCall{InterpretableCall: call, limit: limit}, nil
		}
		return i, nil
	})
}

// guardedOverloads are the overloads sizeGuards redefines, by function.
var guardedOverloads = map[string][]string{
	"join":    {"list_join", "list_join_string"},
	"replace": {"string_replace_string_string", "string_replace_string_string_int"},
	"format":  {"string_format"},
}

// extBindings holds the implementations of the guarded overloads, from the
// ext string library. They do not depend on the environment, so they are
// read once.
var extBindings = sync.OnceValues(func() (map[string]*functions.Overload, error) {
	env, err := celgo.NewCustomEnv(ext.Strings())
	if err != nil {
		return nil, fmt.Errorf("cel: reading the ext string functions: %w", err)
	}
	out := map[string]*functions.Overload{}
	for name, ids := range guardedOverloads {
		fn, ok := env.Functions()[name]
		if !ok {
			return nil, fmt.Errorf("cel: the ext string library has no %s function to guard", name)
		}
		bindings, err := fn.Bindings()
		if err != nil {
			return nil, fmt.Errorf("cel: guarding %s: %w", name, err)
		}
		for _, b := range bindings {
			out[b.Operator] = b
		}
		for _, id := range ids {
			if out[id] == nil {
				return nil, fmt.Errorf("cel: the ext string library has no %s overload to guard", id)
			}
		}
	}
	return out, nil
})

// sizeGuards redefines join, replace and format of the ext string library
// (declared before them) to check the size of their result from their
// arguments before they build it.
func sizeGuards(limit int) ([]celgo.EnvOption, error) {
	orig, err := extBindings()
	if err != nil {
		return nil, err
	}
	guard := func(id string, check func(args []ref.Val) string) celgo.OverloadOpt {
		o := orig[id]
		return celgo.FunctionBinding(func(args ...ref.Val) ref.Val {
			if what := check(args); what != "" {
				return types.WrapErr(sizeError(limit, what))
			}
			return call(o, args)
		})
	}
	str, list := celgo.StringType, celgo.ListType(celgo.StringType)
	return []celgo.EnvOption{
		celgo.Function("join",
			celgo.MemberOverload("list_join", []*celgo.Type{list}, str,
				guard("list_join", func(a []ref.Val) string { return joinSize(a[0], nil, limit) })),
			celgo.MemberOverload("list_join_string", []*celgo.Type{list, str}, str,
				guard("list_join_string", func(a []ref.Val) string { return joinSize(a[0], a[1], limit) }))),
		celgo.Function("replace",
			celgo.MemberOverload("string_replace_string_string", []*celgo.Type{str, str, str}, str,
				guard("string_replace_string_string", func(a []ref.Val) string { return replaceSize(a, limit) })),
			celgo.MemberOverload("string_replace_string_string_int", []*celgo.Type{str, str, str, celgo.IntType}, str,
				guard("string_replace_string_string_int", func(a []ref.Val) string { return replaceSize(a, limit) }))),
		celgo.Function("format",
			celgo.MemberOverload("string_format", []*celgo.Type{str, celgo.ListType(celgo.DynType)}, str,
				guard("string_format", func(a []ref.Val) string { return formatSize(a, limit) }))),
	}, nil
}

// call invokes an overload's implementation with args.
func call(o *functions.Overload, args []ref.Val) ref.Val {
	switch {
	case len(args) == 1 && o.Unary != nil:
		return o.Unary(args[0])
	case len(args) == 2 && o.Binary != nil:
		return o.Binary(args[0], args[1])
	case o.Function != nil:
		return o.Function(args...)
	}
	return types.NoSuchOverloadErr()
}

// joinSize describes the result of joining list with sep when it would be
// larger than limit.
func joinSize(list, sep ref.Val, limit int) string {
	l, ok := list.(traits.Lister)
	if !ok {
		return ""
	}
	n, _ := l.Size().(types.Int)
	total := 0
	if s, ok := sep.(types.String); ok && n > 1 {
		total = min(len(s)*int(n-1), limit+1)
	}
	for it := l.Iterator(); it.HasNext() == types.True && total <= limit; {
		if s, ok := it.Next().(types.String); ok {
			total += len(s)
		}
	}
	if total > limit {
		return fmt.Sprintf("a joined string of more than %d bytes", limit)
	}
	return ""
}

// replaceSize describes the result of s.replace(old, new[, n]) when it
// would be larger than limit.
func replaceSize(args []ref.Val, limit int) string {
	s, ok1 := args[0].(types.String)
	old, ok2 := args[1].(types.String)
	repl, ok3 := args[2].(types.String)
	if !ok1 || !ok2 || !ok3 || len(repl) <= len(old) {
		return ""
	}
	count := 0
	if old == "" {
		count = utf8.RuneCountInString(string(s)) + 1
	} else {
		count = strings.Count(string(s), string(old))
	}
	if len(args) == 4 {
		if n, ok := args[3].(types.Int); ok && n >= 0 && int64(n) < int64(count) {
			count = int(n)
		}
	}
	grow := len(repl) - len(old)
	if count > 0 && (len(s) > limit || count > (limit-len(s))/grow) {
		return fmt.Sprintf("a replaced string of more than %d bytes", limit)
	}
	return ""
}

// formatSize describes the result of fmt.format(args) when it could be
// larger than limit: the format text plus the size of the arguments (a
// list may hold the same large value many times).
func formatSize(args []ref.Val, limit int) string {
	f, _ := args[0].(types.String)
	left := limit - len(f)
	if left < 0 || !fits(args[1], &left) {
		return fmt.Sprintf("a formatted string of more than %d bytes", limit)
	}
	return ""
}

// fits takes the size of v (string bytes, and ElementBytes per element or
// entry, keys included) from *left and reports whether it stayed
// non-negative. It stops as soon as it has not.
func fits(v ref.Val, left *int) bool {
	*left -= ElementBytes
	switch x := v.(type) {
	case types.String:
		*left -= len(x)
	case types.Bytes:
		*left -= len(x)
	case traits.Mapper:
		for it := x.Iterator(); it.HasNext() == types.True && *left >= 0; {
			k := it.Next()
			val, _ := x.Find(k)
			if !fits(k, left) || val != nil && !fits(val, left) {
				return false
			}
		}
	case traits.Lister:
		for it := x.Iterator(); it.HasNext() == types.True && *left >= 0; {
			if !fits(it.Next(), left) {
				return false
			}
		}
	}
	return *left >= 0
}
