package action

import (
	"strings"

	"github.com/troupe-dev/troupe/internal/pyjson"
	"github.com/troupe-dev/troupe/llm"
)

// TaskOutput is the result of one crew task, CrewAI's TaskOutput.
type TaskOutput struct {
	Name           string
	Description    string
	ExpectedOutput string
	// Summary is the first ten words of the description and "...".
	Summary  string
	Raw      string
	Pydantic any
	// JSONDict is the structured output when it is an object.
	JSONDict map[string]any
	// Agent is the role of the agent that did the task.
	Agent string
	// OutputFormat is "raw", or "json" for a structured output.
	OutputFormat string
	Messages     []llm.Message
	ToolFailures []ToolFailure
	// Usage sums the task's LLM calls: its agent's, its coworkers' and its
	// guardrails', every try included.
	Usage llm.Usage
}

func newTaskOutput(t *TaskSpec, role string, ao *AgentOutput) *TaskOutput {
	o := &TaskOutput{Name: t.Name, Description: t.Description, ExpectedOutput: t.ExpectedOutput,
		Summary: summary(t.Description), Raw: ao.Raw, Pydantic: ao.Pydantic, Agent: role, OutputFormat: "raw",
		Messages: ao.Messages, ToolFailures: ao.ToolFailures}
	if ao.Pydantic != nil {
		o.OutputFormat = "json"
		o.JSONDict, _ = ao.Pydantic.(map[string]any)
	}
	return o
}

// summary returns the first ten space-separated words of s and "...".
func summary(s string) string {
	words := strings.Split(s, " ")
	return strings.Join(words[:min(len(words), 10)], " ") + "..."
}

// String returns the output as CrewAI prints it: the structured output when
// there is one, else Raw.
func (o *TaskOutput) String() string {
	if o.JSONDict != nil {
		return pyjson.Repr(o.JSONDict)
	}
	return o.Raw
}

// Map returns the output as JSON data in CrewAI's shape.
func (o *TaskOutput) Map() map[string]any {
	var name any
	if o.Name != "" {
		name = o.Name
	}
	var jd any
	if o.JSONDict != nil {
		jd = o.JSONDict
	}
	return map[string]any{
		"description":     o.Description,
		"name":            name,
		"expected_output": o.ExpectedOutput,
		"summary":         o.Summary,
		"raw":             o.Raw,
		"pydantic":        o.Pydantic,
		"json_dict":       jd,
		"agent":           o.Agent,
		"output_format":   o.OutputFormat,
		"messages":        messagesData(o.Messages),
		"tool_failures":   failuresData(o.ToolFailures),
	}
}

// CrewOutput is the result of a crew run, CrewAI's CrewOutput.
type CrewOutput struct {
	// Raw, Pydantic and JSONDict come from the last task whose raw output
	// is not empty.
	Raw         string
	Pydantic    any
	JSONDict    map[string]any
	TasksOutput []*TaskOutput
	// TokenUsage sums every LLM call of the run, each counted once.
	TokenUsage llm.Usage
	// UsageByAgent splits TokenUsage by agent role.
	UsageByAgent map[string]llm.Usage
}

// finish sets the crew's result from its last non-empty task output.
func (o *CrewOutput) finish() {
	for i := len(o.TasksOutput) - 1; i >= 0; i-- {
		if t := o.TasksOutput[i]; t.Raw != "" {
			o.Raw, o.Pydantic, o.JSONDict = t.Raw, t.Pydantic, t.JSONDict
			return
		}
	}
}

// String returns the structured output in Python's repr when there is one,
// else Raw.
func (o *CrewOutput) String() string {
	if o.JSONDict != nil {
		return pyjson.Repr(o.JSONDict)
	}
	return o.Raw
}

// Map returns the output as JSON data in CrewAI's shape.
func (o *CrewOutput) Map() map[string]any {
	tasks := make([]any, len(o.TasksOutput))
	for i, t := range o.TasksOutput {
		tasks[i] = t.Map()
	}
	var jd any
	if o.JSONDict != nil {
		jd = o.JSONDict
	}
	return map[string]any{
		"raw":          o.Raw,
		"pydantic":     o.Pydantic,
		"json_dict":    jd,
		"tasks_output": tasks,
		"token_usage":  UsageMap(o.TokenUsage),
	}
}
