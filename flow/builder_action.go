package flow

// Action constructors for the Builder. Each returns a new Action of one
// call kind; maps are used as given and converted to JSON data at Build.

// Go returns a code action whose body is fn. Such a method runs without a
// registered handler but cannot be written to YAML or JSON unless the
// action's Ref is also set (to the name fn is registered under).
func Go(fn Handler) *Action { return &Action{Call: CallCode, Func: fn} }

// Code returns a code action calling the handler registered under ref
// (WithCode) with the rendered with arguments. Strings in with are ${...}
// templates over state and outputs.
func Code(ref string, with map[string]any) *Action {
	return &Action{Call: CallCode, Ref: ref, With: with}
}

// Tool returns a tool action calling the tool registered under ref with the
// rendered with arguments.
func Tool(ref string, with map[string]any) *Action {
	return &Action{Call: CallTool, Ref: ref, With: with}
}

// Expr returns an expression action: the method's output is the value of
// the CEL expression expr over state and outputs.
func Expr(expr string) *Action { return &Action{Call: CallExpression, Expr: expr} }

// AgentAction returns an agent action running the inline agent a on its
// Input (a ${...} template).
func AgentAction(a *Agent) *Action { return &Action{Call: CallAgent, Agent: a} }

// CrewAction returns a crew action running the inline crew c with the given
// inputs (templates; nil for none).
func CrewAction(c *Crew, inputs map[string]any) *Action {
	return &Action{Call: CallCrew, Crew: c, Inputs: inputs}
}

// CrewFrom returns a crew action running the crew declared in the file or
// folder at path, relative to the definition's directory.
func CrewFrom(path string, inputs map[string]any) *Action {
	return &Action{Call: CallCrew, FromDeclaration: path, Inputs: inputs}
}

// Script returns a script action running Python code. Engines run scripts
// only when the host opts in.
func Script(code string) *Action {
	return &Action{Call: CallScript, Code: code, Language: "python"}
}

// Each returns an each action running steps, in order, for every item of
// the list the CEL expression in yields. Steps read the item as item and
// earlier steps' outputs as outputs.<step>.
func Each(in string, steps ...*Step) *Action {
	return &Action{Call: CallEach, In: in, Steps: steps}
}

// NewStep returns an each step running a (any kind but each).
func NewStep(name string, a *Action) *Step { return &Step{Name: name, Action: a} }

// When sets the step's condition, a CEL expression over item, state and
// outputs that must be true for the step to run, and returns s.
func (s *Step) When(cond string) *Step {
	s.If = &cond
	return s
}

// Model returns a model choice written as a bare model string, such as
// "openai/gpt-4o-mini".
func Model(name string) *LLMConfig { return &LLMConfig{Model: name, Short: true} }
