package flow

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// SchemaID is the $id of the JSON Schema that JSONSchema returns.
const SchemaID = "https://troupe.dev/schema/crewai.flow/v1.json"

// JSONSchema returns a JSON Schema (draft 2020-12) of the crewai.flow/v1
// file format, for editors such as yaml-language-server. It describes the
// shape of a file; the loader checks more (CEL, names, triggers), so a file
// the schema accepts may still have diagnostics.
func JSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		RequiredFromJSONSchemaTags: true,
		Anonymous:                  true,
		Namer: func(t reflect.Type) string {
			return strings.TrimPrefix(t.Name(), "doc")
		},
	}
	s := r.Reflect(&docFlow{})
	// Union members appear only inside the hand-written JSONSchema methods
	// below, so reflect them too and keep their definitions.
	for _, member := range docUnionMembers {
		for name, def := range r.Reflect(member).Definitions {
			if _, ok := s.Definitions[name]; !ok {
				s.Definitions[name] = def
			}
		}
	}
	s.ID = SchemaID
	s.Title = "CrewAI declarative flow (crewai.flow/v1)"
	s.Description = "A flow definition: named methods wired by start, listen and router events. Loaded by Troupe and CrewAI."
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("flow: JSON Schema: %w", err)
	}
	return out, nil
}

var docUnionMembers = []any{
	&docCodeAction{}, &docToolAction{}, &docCrewAction{}, &docAgentAction{},
	&docExpressionAction{}, &docScriptAction{}, &docEachAction{},
	&docAndCondition{}, &docOrCondition{}, &docLLMDefinition{}, &docPythonRef{},
	&docDictState{}, &docJSONSchemaState{}, &docPydanticState{}, &docUnknownState{},
	&docCrewAgent{}, &docCheckpoint{},
}

func ref(name string) *jsonschema.Schema { return &jsonschema.Schema{Ref: "#/$defs/" + name} }

func typed(t string) *jsonschema.Schema { return &jsonschema.Schema{Type: t} }

// open lets a model keep keys it does not declare (CrewAI ignores or keeps
// them); the reflector closes every object by default.
func open(s *jsonschema.Schema) { s.AdditionalProperties = nil }

// docFlow is the top level of a definition file.
type docFlow struct {
	Schema         string               `json:"schema,omitempty" jsonschema:"enum=crewai.flow/v1" jsonschema_description:"The format version; the only one is crewai.flow/v1 (the default)."`
	SchemaAlias    string               `json:"schema_,omitempty" jsonschema:"enum=crewai.flow/v1" jsonschema_description:"Alias of schema."`
	Name           string               `json:"name" jsonschema:"required" jsonschema_description:"The flow's name, used in events, logs and memory scopes."`
	Description    *string              `json:"description,omitempty" jsonschema:"nullable"`
	State          *docState            `json:"state,omitempty" jsonschema_description:"The flow state: its type and initial value. Omitted or null gives a dict state."`
	Config         *docConfig           `json:"config,omitempty"`
	Persist        *docPersist          `json:"persist,omitempty" jsonschema:"nullable"`
	Conversational *docConversational   `json:"conversational,omitempty" jsonschema:"nullable"`
	Methods        map[string]docMethod `json:"methods,omitempty" jsonschema_description:"The flow's methods by name, in order. A name matches ^[A-Za-z_][A-Za-z0-9_]*$."`
}

// JSONSchemaExtend keeps unknown top-level keys (CrewAI ignores them) and
// constrains method names.
func (docFlow) JSONSchemaExtend(s *jsonschema.Schema) {
	open(s)
	if m, ok := s.Properties.Get("methods"); ok {
		m.PropertyNames = &jsonschema.Schema{Pattern: "^[A-Za-z_][A-Za-z0-9_]*$"}
	}
}

// docState is the state union, told apart by type.
type docState struct{}

// JSONSchema lists the state kinds.
func (docState) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "The flow state. type selects the kind: dict, json_schema, pydantic or unknown.",
		OneOf: []*jsonschema.Schema{
			ref("DictState"), ref("JSONSchemaState"), ref("PydanticState"), ref("UnknownState"), typed("null"),
		},
	}
}

type docDictState struct {
	Type    string         `json:"type" jsonschema:"required,enum=dict"`
	Default map[string]any `json:"default,omitempty" jsonschema:"nullable" jsonschema_description:"The initial state, copied for every run; an id is added."`
}

type docJSONSchemaState struct {
	Type       string         `json:"type" jsonschema:"required,enum=json_schema"`
	JSONSchema map[string]any `json:"json_schema" jsonschema:"required" jsonschema_description:"The JSON Schema the state must follow."`
	Default    map[string]any `json:"default,omitempty" jsonschema:"nullable"`
}

type docPydanticState struct {
	Type       string         `json:"type" jsonschema:"required,enum=pydantic"`
	Ref        *string        `json:"ref,omitempty" jsonschema:"nullable" jsonschema_description:"A Python model (module:qualname); Troupe uses json_schema instead."`
	JSONSchema map[string]any `json:"json_schema,omitempty" jsonschema:"nullable"`
	Default    map[string]any `json:"default,omitempty" jsonschema:"nullable"`
}

type docUnknownState struct {
	Type    string         `json:"type" jsonschema:"required,enum=unknown"`
	Ref     *string        `json:"ref,omitempty" jsonschema:"nullable"`
	Default map[string]any `json:"default,omitempty" jsonschema:"nullable"`
}

type docConfig struct {
	Tracing                *bool          `json:"tracing,omitempty" jsonschema:"nullable"`
	Stream                 bool           `json:"stream,omitempty" jsonschema_description:"Stream the run's output."`
	Memory                 map[string]any `json:"memory,omitempty" jsonschema:"nullable" jsonschema_description:"Flow memory settings."`
	InputProvider          *string        `json:"input_provider,omitempty" jsonschema:"nullable"`
	SuppressFlowEvents     bool           `json:"suppress_flow_events,omitempty"`
	MaxMethodCalls         int            `json:"max_method_calls,omitempty" jsonschema:"minimum=1" jsonschema_description:"How many times one listener may run in a run (default 100, at least 1)."`
	DeferTraceFinalization bool           `json:"defer_trace_finalization,omitempty"`
	Checkpoint             *docCheckpoint `json:"checkpoint,omitempty"`
	Budgets                *docBudgets    `json:"budgets,omitempty" jsonschema_description:"Troupe: limits on the run's tokens, cost, wall time and tool calls, and per agent role."`
}

// docBudget is a budgets block: positive limits, each optional.
type docBudget struct {
	MaxTokens    int     `json:"max_tokens,omitempty" jsonschema:"minimum=1"`
	MaxCost      float64 `json:"max_cost,omitempty" jsonschema:"exclusiveMinimum=0" jsonschema_description:"US dollars, priced with the host's price table."`
	MaxWallTime  any     `json:"max_wall_time,omitempty" jsonschema:"oneof_type=number;string" jsonschema_description:"Seconds, or a duration such as 90s or 5m."`
	MaxToolCalls int     `json:"max_tool_calls,omitempty" jsonschema:"minimum=1"`
}

// docBudgets is config.budgets: the run's limits and each agent role's.
type docBudgets struct {
	docBudget
	Agents map[string]docBudget `json:"agents,omitempty"`
}

// JSONSchemaExtend keeps unknown config keys, as CrewAI does.
func (docConfig) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

// docCheckpoint is config.checkpoint: true, a settings map, or null.
type docCheckpoint struct{}

// JSONSchema lists the checkpoint forms.
func (docCheckpoint) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{typed("boolean"), typed("object"), typed("null")}}
}

type docPersist struct {
	Enabled     bool `json:"enabled,omitempty"`
	Verbose     bool `json:"verbose,omitempty"`
	Persistence any  `json:"persistence,omitempty" jsonschema_description:"The backend: {persistence_type: Name, ...}; null means the default store."`
}

// JSONSchemaExtend keeps unknown keys, as CrewAI does.
func (docPersist) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

type docConversational struct {
	Enabled      *bool  `json:"enabled,omitempty" jsonschema_description:"Declaring the block turns the experimental conversational mode on unless this is false."`
	SystemPrompt string `json:"system_prompt,omitempty"`
	LLM          any    `json:"llm,omitempty"`
}

// JSONSchemaExtend keeps the block's other keys.
func (docConversational) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

// docMethod is one method.
type docMethod struct {
	Description   *string           `json:"description,omitempty" jsonschema:"nullable"`
	Do            docAction         `json:"do" jsonschema:"required"`
	Start         *docStart         `json:"start,omitempty"`
	Listen        *docCondition     `json:"listen,omitempty" jsonschema:"nullable" jsonschema_description:"Run when this event (a method name or router outcome) or condition fires. Ignored on start methods."`
	Router        bool              `json:"router,omitempty" jsonschema_description:"Emit the method's result as an event."`
	Emit          []string          `json:"emit,omitempty" jsonschema:"nullable" jsonschema_description:"The outcomes a router may return."`
	HumanFeedback *docHumanFeedback `json:"human_feedback,omitempty" jsonschema:"nullable"`
	Persist       *docPersist       `json:"persist,omitempty" jsonschema:"nullable"`
	Budgets       *docBudget        `json:"budgets,omitempty" jsonschema_description:"Troupe: limits on this method's tokens, cost, wall time (per invocation) and tool calls."`
}

// JSONSchemaExtend keeps unknown method keys, as CrewAI does.
func (docMethod) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

// docStart is start: true, an event name, a condition, or a falsy value.
type docStart struct{}

// JSONSchema lists the start forms.
func (docStart) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "true runs the method at kickoff; an event name or condition makes a conditional start; false, \"\" or null is no start.",
		AnyOf:       []*jsonschema.Schema{typed("boolean"), ref("Condition"), typed("null")},
	}
}

// docCondition is an event name or an and/or combination.
type docCondition struct{}

// JSONSchema lists the condition forms.
func (docCondition) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "An event name, {and: [...]} or {or: [...]}.",
		AnyOf:       []*jsonschema.Schema{typed("string"), ref("AndCondition"), ref("OrCondition")},
	}
}

type docAndCondition struct {
	And []docCondition `json:"and" jsonschema:"required,minItems=1" jsonschema_description:"Met once every condition has been met."`
}

type docOrCondition struct {
	Or []docCondition `json:"or" jsonschema:"required,minItems=1" jsonschema_description:"Met when any condition is met."`
}

type docHumanFeedback struct {
	Message        string         `json:"message" jsonschema:"required" jsonschema_description:"The question shown to the person."`
	Emit           []string       `json:"emit,omitempty" jsonschema:"nullable" jsonschema_description:"Outcomes; when set the method becomes a router on the person's answer."`
	LLM            any            `json:"llm,omitempty" jsonschema_description:"The model that maps free text onto emit (default gpt-4o-mini)."`
	DefaultOutcome *string        `json:"default_outcome,omitempty" jsonschema:"nullable"`
	Metadata       map[string]any `json:"metadata,omitempty" jsonschema:"nullable"`
	Provider       any            `json:"provider,omitempty"`
	Learn          bool           `json:"learn,omitempty"`
	LearnSource    string         `json:"learn_source,omitempty"`
	LearnStrict    bool           `json:"learn_strict,omitempty"`
}

// JSONSchemaExtend keeps unknown keys, as CrewAI does.
func (docHumanFeedback) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

// docAction is a method's do block: one of the action kinds.
type docAction struct{}

// JSONSchema lists the action kinds; without call an action is code.
func (docAction) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "What the method does; call selects the kind (code when omitted).",
		AnyOf: []*jsonschema.Schema{
			ref("CodeAction"), ref("ToolAction"), ref("CrewAction"), ref("AgentAction"),
			ref("ExpressionAction"), ref("ScriptAction"), ref("EachAction"),
		},
	}
}

// docStepAction is an each step's action: any kind but each, call required.
type docStepAction struct{}

// JSONSchema lists the step action kinds.
func (docStepAction) JSONSchema() *jsonschema.Schema {
	code := &jsonschema.Schema{AllOf: []*jsonschema.Schema{ref("CodeAction")}, Required: []string{"call"}}
	return &jsonschema.Schema{
		Description: "A step's action; call is required and each cannot be nested.",
		AnyOf: []*jsonschema.Schema{
			code, ref("ToolAction"), ref("CrewAction"), ref("AgentAction"), ref("ExpressionAction"), ref("ScriptAction"),
		},
	}
}

type docCodeAction struct {
	Call     string         `json:"call,omitempty" jsonschema:"enum=code"`
	Ref      string         `json:"ref" jsonschema:"required" jsonschema_description:"The registered handler (module:qualname in CrewAI)."`
	With     map[string]any `json:"with,omitempty" jsonschema:"nullable" jsonschema_description:"Arguments; every string may hold ${...} CEL templates."`
	WithName map[string]any `json:"with_,omitempty" jsonschema:"nullable" jsonschema_description:"Alias of with."`
}

type docToolAction struct {
	Call     string         `json:"call" jsonschema:"required,enum=tool"`
	Ref      string         `json:"ref" jsonschema:"required" jsonschema_description:"The tool to call."`
	With     map[string]any `json:"with,omitempty" jsonschema:"nullable" jsonschema_description:"The tool's arguments; every string may hold ${...} CEL templates."`
	WithName map[string]any `json:"with_,omitempty" jsonschema:"nullable" jsonschema_description:"Alias of with."`
}

type docCrewAction struct {
	Call            string         `json:"call" jsonschema:"required,enum=crew"`
	FromDeclaration *string        `json:"from_declaration,omitempty" jsonschema:"nullable" jsonschema_description:"A crew folder or file; exactly one of from_declaration and with."`
	With            *docCrew       `json:"with,omitempty" jsonschema:"nullable"`
	WithName        *docCrew       `json:"with_,omitempty" jsonschema:"nullable" jsonschema_description:"Alias of with."`
	Inputs          map[string]any `json:"inputs,omitempty" jsonschema:"nullable" jsonschema_description:"Crew inputs; strings may hold ${...} CEL templates."`
}

type docAgentAction struct {
	Call string       `json:"call" jsonschema:"required,enum=agent"`
	With docAgentWith `json:"with" jsonschema:"required"`
}

type docExpressionAction struct {
	Call string `json:"call" jsonschema:"required,enum=expression"`
	Expr string `json:"expr" jsonschema:"required" jsonschema_description:"A CEL expression over state and outputs."`
}

type docScriptAction struct {
	Call     string `json:"call" jsonschema:"required,enum=script"`
	Code     string `json:"code" jsonschema:"required" jsonschema_description:"Inline Python; runs only when the host allows scripts."`
	Language string `json:"language,omitempty" jsonschema:"enum=python"`
}

type docEachAction struct {
	Call string    `json:"call" jsonschema:"required,enum=each"`
	In   string    `json:"in" jsonschema:"required" jsonschema_description:"A CEL expression giving the list to walk."`
	Do   []docStep `json:"do" jsonschema:"required,minItems=1" jsonschema_description:"The steps run for every item."`
}

type docStep struct {
	Name   string        `json:"name" jsonschema:"required,pattern=^[A-Za-z_][A-Za-z0-9_]*$"`
	If     *string       `json:"if,omitempty" jsonschema:"nullable" jsonschema_description:"A CEL condition over item, outputs and state; false skips the step."`
	IfName *string       `json:"if_,omitempty" jsonschema:"nullable" jsonschema_description:"Alias of if."`
	Action docStepAction `json:"action" jsonschema:"required"`
}

// docAgentFields are the keys shared by agent actions and crew agents.
type docAgentFields struct {
	Role             *string        `json:"role,omitempty" jsonschema:"nullable"`
	Goal             *string        `json:"goal,omitempty" jsonschema:"nullable"`
	Backstory        *string        `json:"backstory,omitempty" jsonschema:"nullable"`
	Type             *docClassRef   `json:"type,omitempty"`
	FromRepository   *string        `json:"from_repository,omitempty" jsonschema:"nullable"`
	Settings         map[string]any `json:"settings,omitempty" jsonschema:"nullable" jsonschema_description:"Agent settings, merged over the fields above."`
	LLM              *docLLM        `json:"llm,omitempty"`
	PlanningConfig   map[string]any `json:"planning_config,omitempty" jsonschema:"nullable"`
	AllowDelegation  *bool          `json:"allow_delegation,omitempty" jsonschema:"nullable"`
	MaxIter          *int           `json:"max_iter,omitempty" jsonschema:"nullable"`
	MaxRPM           *int           `json:"max_rpm,omitempty" jsonschema:"nullable"`
	MaxExecutionTime *int           `json:"max_execution_time,omitempty" jsonschema:"nullable"`
	Tools            []docToolRef   `json:"tools,omitempty" jsonschema:"nullable"`
	Apps             []string       `json:"apps,omitempty" jsonschema:"nullable"`
	MCPs             []docMCPRef    `json:"mcps,omitempty" jsonschema:"nullable" jsonschema_description:"MCP servers whose tools the agent gets: https URLs (with #tool), AMP slugs, or mappings with command (stdio) or url (HTTP, SSE)."`
	ResponseSchema   map[string]any `json:"response_schema,omitempty" jsonschema_description:"Troupe: the JSON Schema of a structured answer."`
	Skills           []string       `json:"skills,omitempty" jsonschema:"nullable,minItems=1" jsonschema_description:"Agent Skills: folders of skill folders (relative to the flow file), skill folders, inline SKILL.md texts, @org/name[@version] references."`
}

type docAgentWith struct {
	docAgentFields
	Input           string        `json:"input" jsonschema:"required" jsonschema_description:"The task text, a ${...} template."`
	FromDeclaration *string       `json:"from_declaration,omitempty" jsonschema_description:"Troupe: an agent file (troupe.agent/v1) inside the flow's folder, run with input instead of the fields above."`
	ResponseFormat  *docPythonRef `json:"response_format,omitempty" jsonschema:"nullable"`
}

// JSONSchemaExtend keeps other agent keys, as CrewAI does.
func (docAgentWith) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

type docCrewAgent struct {
	docAgentFields
	Name string `json:"name,omitempty"`
}

// JSONSchemaExtend keeps other agent keys, as CrewAI does.
func (docCrewAgent) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

type docCrew struct {
	Agents       docCrewAgents  `json:"agents" jsonschema:"required"`
	Tasks        []docTask      `json:"tasks" jsonschema:"required,minItems=1"`
	Inputs       map[string]any `json:"inputs,omitempty" jsonschema:"nullable" jsonschema_description:"Default crew inputs; strings may hold ${...} CEL templates."`
	ManagerAgent *docClassRef   `json:"manager_agent,omitempty"`
	ManagerLLM   *docLLM        `json:"manager_llm,omitempty"`
	Name         *string        `json:"name,omitempty" jsonschema:"nullable"`
	Process      *string        `json:"process,omitempty" jsonschema:"nullable" jsonschema_description:"sequential or hierarchical."`
	Skills       []string       `json:"skills,omitempty" jsonschema:"nullable" jsonschema_description:"Agent Skills given to every agent of the crew, after its own."`
}

// JSONSchemaExtend keeps other crew keys, as CrewAI does.
func (docCrew) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

// docCrewAgents is a map of agents by name, or a list of agents.
type docCrewAgents struct{}

// JSONSchema lists both forms.
func (docCrewAgents) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "Agents by name, or a list of agents each with a name (or a one-key {name: agent} mapping).",
		AnyOf: []*jsonschema.Schema{
			{Type: "object", AdditionalProperties: ref("CrewAgent")},
			{Type: "array", Items: typed("object")},
		},
	}
}

type docTask struct {
	Description    string         `json:"description" jsonschema:"required"`
	ExpectedOutput string         `json:"expected_output" jsonschema:"required"`
	Name           *string        `json:"name,omitempty" jsonschema:"nullable"`
	Agent          *string        `json:"agent,omitempty" jsonschema:"nullable"`
	Context        []string       `json:"context,omitempty" jsonschema:"nullable" jsonschema_description:"Names of earlier tasks whose outputs this task reads."`
	ResponseSchema map[string]any `json:"response_schema,omitempty"`
}

// JSONSchemaExtend keeps other task keys, as CrewAI does.
func (docTask) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

// docLLM is a model string, an LLM definition, or null.
type docLLM struct{}

// JSONSchema lists the LLM forms.
func (docLLM) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "A model string such as openai/gpt-4o-mini, or {model: ..., ...provider settings}.",
		AnyOf:       []*jsonschema.Schema{typed("string"), ref("LLMDefinition"), typed("null")},
	}
}

type docLLMDefinition struct {
	Model     string `json:"model" jsonschema:"required"`
	MaxTokens *int   `json:"max_tokens,omitempty" jsonschema:"nullable"`
}

// JSONSchemaExtend keeps provider settings.
func (docLLMDefinition) JSONSchemaExtend(s *jsonschema.Schema) { open(s) }

// docClassRef is a name or a {python: "module.attr"} reference.
type docClassRef struct{}

// JSONSchema lists the reference forms.
func (docClassRef) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{typed("string"), ref("PythonRef"), typed("null")}}
}

type docPythonRef struct {
	Python string `json:"python" jsonschema:"required" jsonschema_description:"A dotted import path like module.attribute."`
}

// docToolRef is a tool name or a tool with settings.
type docToolRef struct{}

// JSONSchema lists the tool reference forms.
func (docToolRef) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{typed("string"), typed("object")}}
}

// docMCPRef is an MCP server: a string (an https URL or an AMP slug) or a
// mapping; its keys are checked when the definition loads.
type docMCPRef struct{}

// JSONSchema lists the MCP server forms.
func (docMCPRef) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{typed("string"), typed("object")}}
}
