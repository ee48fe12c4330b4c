package flow

import (
	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/mcp"
)

// CallKind names what an action does: the call key of a do block.
type CallKind string

// Call kinds of an action.
const (
	CallCode       CallKind = "code"
	CallTool       CallKind = "tool"
	CallCrew       CallKind = "crew"
	CallAgent      CallKind = "agent"
	CallExpression CallKind = "expression"
	CallScript     CallKind = "script"
	CallEach       CallKind = "each"
)

// Action is what a method (or an each step) does. Call selects the kind;
// only the fields of that kind are set.
type Action struct {
	// Call is one of the Call* constants.
	Call CallKind

	// Ref names a registered code handler or tool (code, tool).
	Ref string
	// With holds the arguments of code and tool actions: JSON data whose
	// strings are ${...} templates. Nil means no with block.
	With map[string]any

	// Crew is the inline crew of a crew action (with); FromDeclaration is a
	// crew folder or file instead. Inputs are the action-level crew inputs.
	Crew            *Crew
	FromDeclaration string
	Inputs          map[string]any

	// Agent is the inline agent of an agent action.
	Agent *Agent

	// Expr is the CEL expression of an expression action.
	Expr string

	// Code and Language are the body of a script action.
	Code     string
	Language string

	// In is the CEL list expression of an each action; Steps run per item.
	In    string
	Steps []*Step

	// Func is the Go body of a code action built in Go. It takes precedence
	// over Ref and is not serialised.
	Func Handler
}

// Step is one named step of an each action.
type Step struct {
	Name string
	// If is an optional CEL condition; nil means always.
	If     *string
	Action *Action
}

// LLMConfig is a model choice: a model string, or a CrewAI LLM definition
// with provider settings in Settings.
type LLMConfig struct {
	Model     string
	MaxTokens *int
	// Settings holds the other keys of an LLM definition (base_url,
	// temperature, api_key, ...).
	Settings map[string]any
	// Short is true when the definition wrote a bare model string.
	Short bool
}

// ToolRef is one entry of an agent's tools: a name, or a map for tools that
// take settings.
type ToolRef struct {
	Name     string
	Settings map[string]any
}

// Agent is an inline agent: the with block of an agent action, or one agent
// of a crew.
type Agent struct {
	// Name is the agent's key in a crew; empty for agent actions.
	Name            string
	Role            string
	Goal            string
	Backstory       string
	FromRepository  string
	LLM             *LLMConfig
	Tools           []ToolRef
	AllowDelegation *bool
	MaxIter         *int
	MaxRPM          *int
	MaxExecTime     *int
	Settings        map[string]any
	// MCPs are the agent's MCP servers (mcps), whose tools it gets for
	// each execution through the engine's WithMCP connector. From a
	// settings block that has mcps, its list (settings win, as in CrewAI).
	MCPs []mcp.Server

	// Input is the task text of an agent action (a template).
	Input string
	// ResponseSchema is the JSON Schema of a structured answer, from the
	// Troupe extension key response_schema. CrewAI's response_format (a
	// Python class) is kept in Extra.
	ResponseSchema map[string]any
	// Skills are the agent's Agent Skills (the skills key): folders of
	// skill folders (or, in Troupe, a skill folder), relative to the
	// definition's folder; inline SKILL.md texts; and @org/name[@version]
	// references. Nil means none; an empty, non-nil list is an error, as
	// in CrewAI.
	Skills []string

	// Extra holds every other key, kept as written.
	Extra map[string]any
}

// Crew is an inline crew definition.
type Crew struct {
	Name    string
	Process string
	Agents  []*Agent
	Tasks   []*Task
	// Inputs are the crew's default inputs (templates).
	Inputs       map[string]any
	ManagerAgent string
	ManagerLLM   *LLMConfig
	// Skills are given to every agent of the crew, after the agent's own
	// (see Agent.Skills); an empty list is allowed.
	Skills []string
	// MCPs are MCP servers every agent of the crew gets after its own (not
	// the manager).
	MCPs []mcp.Server
	// Extra holds every other key, kept as written.
	Extra map[string]any
}

// Agent returns the crew agent with the given name, or nil.
func (c *Crew) Agent(name string) *Agent {
	for _, a := range c.Agents {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Task is one task of a crew.
type Task struct {
	Name           string
	Description    string
	ExpectedOutput string
	Agent          string
	// Context names earlier tasks whose outputs this task reads. Nil means
	// every earlier task; an empty, non-nil slice means none.
	Context []string
	// ResponseSchema is the JSON Schema of a structured task output, from
	// the Troupe extension key response_schema.
	ResponseSchema map[string]any
	// Guardrails check the task's output, in order, from CrewAI's
	// guardrail (one) or guardrails (a list, which wins when both are
	// given).
	Guardrails []Guardrail
	// Extra holds every other key, kept as written.
	Extra map[string]any
}

// A Guardrail is one check of a crew task's output: a requirement a model
// judges (CrewAI's string guardrails), or a Go guardrail. One field is set.
type Guardrail struct {
	// Prompt is the requirement, written as a plain string.
	Prompt string
	// Ref names a Go guardrail registered with WithGuardrail, written as
	// {ref: NAME} (a Troupe extension).
	Ref string
	// Func is a Go guardrail set directly on a task built in Go. It takes
	// precedence over Ref and is not serialised.
	Func action.Guardrail
}
