package flow

// SchemaV1 is the only schema version a definition may declare.
const SchemaV1 = "crewai.flow/v1"

// A Definition is one flow: named methods wired by start, listen and router
// events, plus state, configuration and persistence settings. It mirrors
// CrewAI's FlowDefinition.
//
// A Definition is read-only once loaded or built; one Definition may be run
// by many goroutines at once.
type Definition struct {
	Schema         string
	Name           string
	Description    string
	State          *StateSpec
	Config         Config
	Persist        *Persist
	Conversational *Conversational
	// Methods in declaration order; the order matters for router selection
	// and start order.
	Methods []*Method

	// Source names where the definition came from: a file path, a name given
	// to Parse, or "" for flows built in Go.
	Source string
	// Dir is the directory of the definition file when it was loaded from a
	// path. The files the definition names (crew from_declaration,
	// knowledge_sources) resolve against it and must stay inside it (see
	// WithFileRoots). Empty otherwise: they then resolve against, and stay
	// inside, the working directory. A host may set it before the first run.
	Dir string

	// Warnings holds the non-fatal diagnostics found when the definition was
	// loaded or built. Load, Parse and Build succeed on a definition with
	// warnings and report them only here (they print nothing): a host that
	// wants them shown, or treated as errors as troupe's --strict does,
	// reads them from this field. CheckFile and Check return them too.
	Warnings Diagnostics

	pos positions
}

// Method returns the method with the given name, or nil.
func (d *Definition) Method(name string) *Method {
	for _, m := range d.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// StateType is the kind of a flow's state: state.type.
type StateType string

// The kinds of state.
const (
	StateDict       StateType = "dict"
	StateJSONSchema StateType = "json_schema"
	StatePydantic   StateType = "pydantic"
	StateUnknown    StateType = "unknown"
)

// StateSpec declares the flow's state: its kind and its initial value.
type StateSpec struct {
	// Type is StateDict, StateJSONSchema, StatePydantic or StateUnknown.
	Type StateType
	// Default is the initial state value; it is copied for every run.
	Default map[string]any
	// JSONSchema is required for json_schema state and optional for pydantic.
	JSONSchema map[string]any
	// Ref names a Python model (pydantic and unknown state); Troupe cannot
	// load Python models and falls back to JSONSchema, then to a dict state.
	Ref string
}

// Method is one named step of a flow: exactly one action plus its trigger.
type Method struct {
	Name        string
	Description string
	Do          *Action
	// Start marks a start method: always, or when a condition is met.
	Start Start
	// Listen is the trigger condition of a listener; ignored on start methods.
	Listen *Condition
	// Router makes the method's result an event name.
	Router bool
	// Emit lists the events a router may produce.
	Emit          []string
	HumanFeedback *HumanFeedback
	Persist       *Persist
	// Budget is the method's budgets block (a Troupe extension); nil when
	// not set.
	Budget *Budget
}

// IsStart reports whether the method runs at kickoff or on a start condition.
func (m *Method) IsStart() bool { return m.Start.Always || m.Start.When != nil }

// IsRouter reports whether the method's result is emitted as an event,
// either because router is set or because human feedback declares emit.
func (m *Method) IsRouter() bool {
	return m.Router || (m.HumanFeedback != nil && len(m.HumanFeedback.Emit) > 0)
}

// Events returns the events a router declares: human_feedback.emit when set,
// else emit.
func (m *Method) Events() []string {
	if m.HumanFeedback != nil && len(m.HumanFeedback.Emit) > 0 {
		return m.HumanFeedback.Emit
	}
	return m.Emit
}

// Start says when a start method runs. The zero value is "not a start".
type Start struct {
	// Always is start: true.
	Always bool
	// When is a conditional start (start: "event" or start: {or: [...]}).
	When *Condition
}

// Op combines the items of a condition.
type Op string

// The ways to combine conditions.
const (
	OpAnd Op = "and" // met once every item was met
	OpOr  Op = "or"  // met once any item was met
)

// Condition is a trigger: one event name, or an and/or combination.
type Condition struct {
	// Event is set on a leaf: a method name or a router outcome.
	Event string
	// Op is OpAnd or OpOr on a combination, "" on a leaf.
	Op    Op
	Items []*Condition
}

// On returns a leaf condition on one event.
func On(event string) *Condition { return &Condition{Event: event} }

// And returns a condition met once every item has been met.
func And(items ...*Condition) *Condition { return &Condition{Op: OpAnd, Items: items} }

// Or returns a condition met when any item is met.
func Or(items ...*Condition) *Condition { return &Condition{Op: OpOr, Items: items} }

// Leaves returns every event name in the condition, depth first.
func (c *Condition) Leaves() []string {
	var out []string
	var walk func(*Condition)
	walk = func(c *Condition) {
		if c == nil {
			return
		}
		if c.Op == "" {
			out = append(out, c.Event)
			return
		}
		for _, it := range c.Items {
			walk(it)
		}
	}
	walk(c)
	return out
}

// Config mirrors CrewAI's flow configuration block.
type Config struct {
	Tracing *bool
	Stream  bool
	// Memory configures flow memory; nil means memory is off in Troupe.
	Memory                 map[string]any
	InputProvider          string
	SuppressFlowEvents     bool
	MaxMethodCalls         int
	DeferTraceFinalization bool
	// Checkpoint is nil, true, or a map of checkpoint settings.
	Checkpoint *Checkpoint
	// Budgets is config.budgets (a Troupe extension): the run's budget and
	// its agents'; nil when not set. Methods' own are Method.Budget.
	Budgets *Budgets
}

// DefaultMaxMethodCalls is CrewAI's per-listener call cap per run.
const DefaultMaxMethodCalls = 100

// Checkpoint holds config.checkpoint: true, or a map of settings.
type Checkpoint struct {
	Location string
	Settings map[string]any
}

// Persist is a flow- or method-level persist block.
type Persist struct {
	Enabled bool
	Verbose bool
	// Backend is the persistence map ({persistence_type: Name, ...}); nil
	// means the default store.
	Backend map[string]any
}

// BackendType returns the persistence_type of the backend, or "".
func (p *Persist) BackendType() string {
	if p == nil || p.Backend == nil {
		return ""
	}
	s, _ := p.Backend["persistence_type"].(string)
	return s
}

// HumanFeedback asks a person to review a method's output.
type HumanFeedback struct {
	Message string
	Emit    []string
	// LLM collapses free-text feedback into one of Emit. Nil when the
	// definition sets it to null or "".
	LLM            *LLMConfig
	DefaultOutcome string
	Metadata       map[string]any
	Provider       string
	Learn          bool
	LearnSource    string
	LearnStrict    bool
}

// DefaultFeedbackLLM is the model CrewAI uses for human feedback by default.
const DefaultFeedbackLLM = "gpt-4o-mini"

// Conversational is the experimental conversational block. Troupe validates
// it and keeps it; it does not run conversational turns.
type Conversational struct {
	Enabled bool
	// Settings holds every key of the block as written.
	Settings map[string]any
}
