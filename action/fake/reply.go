package fake

import (
	"fmt"
	"math"
	"regexp"
	"time"

	"github.com/troupe-dev/troupe/internal/fakescript"
	"github.com/troupe-dev/troupe/internal/jsondata"
)

// A ToolReply is one entry of a tool's script: which calls it answers, and
// with what. Result and Error are exclusive; a reply with neither returns
// nil (the tool produced nothing).
type ToolReply struct {
	// Args, when not nil, limits the reply to calls whose arguments hold
	// each of its keys with an equal value; other arguments are ignored.
	// Values are compared as JSON data, deeply, numbers by value (1
	// equals 1.0).
	Args map[string]any
	// Pattern, when not empty, limits the reply to calls whose arguments,
	// as canonical JSON text (compact, keys sorted), contain a match of
	// this RE2 expression. With Args, both must hold.
	Pattern string
	// Times is how many calls the reply may answer; 0 means unlimited
	// (and the answers of an unlimited reply are not counted).
	Times int
	// Result is what the call returns: JSON data or a Go value that
	// encodes as JSON (converted once, when the tool is built). Every call
	// gets its own copy.
	Result any
	// Error, when set, makes the call fail with a [*ToolError] carrying
	// this message.
	Error string
	// Delay makes the call wait this long first (returning early with the
	// context's error when it is cancelled), to test timeouts and races.
	Delay time.Duration
}

// Result returns a reply that answers with v.
func Result(v any) ToolReply { return ToolReply{Result: v} }

// Error returns a reply that makes the call fail with msg.
func Error(msg string) ToolReply { return ToolReply{Error: msg} }

// Match returns r answering only calls whose canonical JSON arguments
// contain a match of the RE2 expression re.
func Match(re string, r ToolReply) ToolReply {
	r.Pattern = re
	return r
}

// MatchArgs returns r answering only calls whose arguments hold each key
// of args with an equal value.
func MatchArgs(args map[string]any, r ToolReply) ToolReply {
	r.Args = args
	return r
}

// Times returns r answering at most n calls.
func Times(n int, r ToolReply) ToolReply {
	r.Times = n
	return r
}

// entry is a compiled reply.
type entry struct {
	args map[string]any // JSON data
	fakescript.Uses
	re     *regexp.Regexp
	result any  // JSON data
	shared bool // result holds no map or slice, so it needs no copy
	err    string
	delay  time.Duration
}

// compile checks r and prepares what answering with it needs.
func compile(r ToolReply) (*entry, error) {
	e := &entry{err: r.Error, delay: r.Delay}
	e.Limit(r.Times)
	if r.Args != nil {
		args, err := jsondata.CloneMap(r.Args)
		if err == nil {
			err = jsondata.Finite(args)
		}
		if err != nil {
			return nil, fakescript.Field("match", fmt.Sprintf("the arguments are not JSON data: %v", err))
		}
		e.args = args
	}
	if r.Pattern != "" {
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			return nil, fakescript.Field("match", fmt.Sprintf("invalid RE2 expression %q: %v", r.Pattern, err))
		}
		e.re = re
	}
	if r.Times < 0 {
		return nil, fakescript.Field("times", fmt.Sprintf("must be positive (or 0 for unlimited), got %d", r.Times))
	}
	if r.Delay < 0 {
		return nil, fakescript.Field("delay", fmt.Sprintf("must not be negative, got %v", r.Delay))
	}
	if r.Error != "" && r.Result != nil {
		return nil, fakescript.Field("error", "a reply has either result or error, not both")
	}
	if r.Result != nil {
		v, err := jsondata.Clone(r.Result)
		if err == nil {
			err = jsondata.Finite(v)
		}
		if err != nil {
			return nil, fakescript.Field("result", fmt.Sprintf("cannot be JSON data: %v", err))
		}
		e.result = v
	}
	switch e.result.(type) {
	case []any, map[string]any:
	default:
		e.shared = true
	}
	return e, nil
}

// arguments are the arguments of one call, as JSON data, and their
// canonical JSON text, built when a pattern first needs it.
type arguments struct {
	value any
	built bool
	s     string
}

// text returns the arguments as compact JSON text with sorted keys.
func (a *arguments) text() string {
	if !a.built {
		a.built = true
		var buf [256]byte
		// The value was decoded from JSON, so it encodes.
		b, _ := jsondata.Append(buf[:0], a.value)
		a.s = string(b)
	}
	return a.s
}

// matches reports whether e answers a call with the arguments args.
func (e *entry) matches(args *arguments) bool {
	if e.args != nil {
		obj, ok := args.value.(map[string]any)
		if !ok {
			return false
		}
		for k, want := range e.args {
			got, ok := obj[k]
			if !ok || !equal(got, want) {
				return false
			}
		}
	}
	return e.re == nil || e.re.MatchString(args.text())
}

// answer returns the result of e, copied when callers could change it.
func (e *entry) answer() any {
	if e.shared {
		return e.result
	}
	return jsondata.Copy(e.result)
}

// equal compares JSON data deeply; an int64 and a float64 are equal when
// they hold the same number.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return sameNumber(x, y)
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y
		case int64:
			return sameNumber(y, x)
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// sameNumber reports whether f is exactly the integer i.
func sameNumber(i int64, f float64) bool {
	// 2^63 is the first float64 beyond int64's range.
	return f == math.Trunc(f) && f >= -(1<<63) && f < (1<<63) && int64(f) == i
}
