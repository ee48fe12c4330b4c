package flow

import (
	"context"

	"github.com/troupe-dev/troupe/memory"
)

// Handler is the Go body of a code method: a function registered under a
// ref (WithCode) or set directly on a method built in Go. It takes its
// Input by value, as slog.Handler.Handle takes a Record: the handler owns
// its copy and may keep it.
//
// It returns the method's output, which listeners receive and CEL reads as
// outputs.<method>. Returning an error fails the method and the run; so
// does a panic, which the engine turns into the method's error (with the
// panic's value) rather than let it end the process from one of the run's
// goroutines.
type Handler func(ctx context.Context, in Input) (any, error)

// Input is what a Handler receives.
type Input struct {
	// Method is the name of the running method; inside an each step it is
	// the outer method's name.
	Method string
	// Args holds the rendered with arguments; nil when the action has none.
	Args map[string]any
	// Trigger is the output that triggered the method: the completed
	// method's output, or a router's result for an outcome. Nil for starts.
	Trigger any
	// Item is the current item inside an each step, else nil.
	Item any
	// State is the run's state, safe for concurrent use.
	State *State
	// Memory is the flow's memory (scoped to /flow/<name>), or nil when
	// memory is off.
	Memory *memory.Memory
}

// Arg returns the with argument key, or nil.
func (in Input) Arg(key string) any { return in.Args[key] }
