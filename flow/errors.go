package flow

import (
	"errors"
	"fmt"
)

// MethodError is a failure of one method; Run returns it wrapped around the
// cause.
type MethodError struct {
	Flow   string
	Method string
	Err    error
}

// Error names the flow, the method and the cause.
func (e *MethodError) Error() string {
	return fmt.Sprintf("flow %s: method %q failed: %v", e.Flow, e.Method, e.Err)
}

// Unwrap returns the cause.
func (e *MethodError) Unwrap() error { return e.Err }

// CompileError lists the methods whose actions cannot be resolved on an
// engine: unregistered refs, malformed refs, missing tools. Compile
// returns it (and Run, which compiles on first use).
type CompileError struct {
	Flow     string
	Problems []MethodProblem
}

// MethodProblem is one unresolvable action.
type MethodProblem struct {
	Method string
	Err    error
}

// Error lists the unresolvable actions in CrewAI's words.
func (e *CompileError) Error() string {
	s := fmt.Sprintf("flow: Cannot build flow '%s' from its definition; methods with unresolvable actions: ", e.Flow)
	for i, p := range e.Problems {
		if i > 0 {
			s += "; "
		}
		s += p.Method + ": " + p.Err.Error()
	}
	return s
}

// ErrScriptsDisabled is returned when a definition has script actions and
// the engine does not allow them.
var ErrScriptsDisabled = errors.New("flow: Flow script execution is disabled by default. Set CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1 to enable it only for trusted flow definitions (in Troupe the host enables scripts with flow.WithScripts(true); troupe run does so with --allow-scripts or with that variable set in its environment, never from .env).")

// ErrLoop reports a listener called more than config.max_method_calls times.
var ErrLoop = errors.New("flow: too many calls")

// loopError is CrewAI's RecursionError text.
type loopError struct {
	method string
	max    int
}

func (e *loopError) Error() string {
	return fmt.Sprintf("Method '%s' has been called %d times in this flow execution, which indicates an infinite loop. This commonly happens when a @listen label matches the method's own name.", e.method, e.max)
}

func (e *loopError) Is(target error) bool { return target == ErrLoop }

// InputError reports kickoff inputs that do not fit the state schema.
type InputError struct {
	Err error
}

// Error carries CrewAI's "Invalid inputs for structured state" text.
func (e *InputError) Error() string {
	return "flow: Invalid inputs for structured state: " + e.Err.Error()
}

// Unwrap returns the validation error.
func (e *InputError) Unwrap() error { return e.Err }
