package llm

import "encoding/json"

// A ToolSpec describes a tool the model may call.
type ToolSpec struct {
	// Name is what the model calls the tool by.
	Name string `json:"name"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the call's arguments (an object schema).
	// It is shared, not copied: do not change it once handed over.
	Parameters map[string]any `json:"parameters,omitempty"`
	// Strict asks providers that support it to constrain the arguments to the
	// schema exactly (OpenAI's strict function calling).
	Strict bool `json:"strict,omitempty"`
}

// A ToolCall is the model's request to run a tool.
type ToolCall struct {
	// ID identifies the call; the tool result message answers it.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the JSON text the model produced, normally an object. It is
	// kept as given, even when it is not valid JSON, so the caller can report
	// the problem back to the model.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}
