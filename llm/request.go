package llm

import (
	"fmt"
	"slices"
	"strings"
)

// Values of [Request].ToolChoice. Any other value names the one tool the
// model must call.
const (
	ToolChoiceAuto     = "auto"     // the model decides (also the meaning of "")
	ToolChoiceNone     = "none"     // the model must not call tools
	ToolChoiceRequired = "required" // the model must call at least one tool
)

// A ResponseSchema asks for a reply that is JSON matching Schema (structured
// output, e.g. OpenAI's response_format json_schema).
type ResponseSchema struct {
	// Name names the schema (providers require a short identifier).
	Name string `json:"name"`
	// Schema is the JSON Schema the reply must match. Shared, not copied.
	Schema map[string]any `json:"schema"`
	// Strict asks for exact adherence where the provider supports it.
	Strict bool `json:"strict,omitempty"`
}

// A Request is one call to a model.
//
// Zero values mean "the provider's default": a nil Temperature, TopP or Seed
// and a zero MaxTokens are not sent.
type Request struct {
	// Model is the provider's model name (without the "provider/" prefix);
	// empty means the model the LLM was configured with.
	Model    string     `json:"model,omitempty"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// ToolChoice is "" or [ToolChoiceAuto], [ToolChoiceNone],
	// [ToolChoiceRequired], or the name of a tool the model must call.
	ToolChoice     string          `json:"tool_choice,omitempty"`
	ResponseSchema *ResponseSchema `json:"response_schema,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	// Stop lists sequences at which generation stops; the stop sequence is not
	// part of the reply. Adapters whose API cannot stop server-side cut the text
	// with [TruncateAtStop].
	Stop []string `json:"stop,omitempty"`
	TopP *float64 `json:"top_p,omitempty"`
	Seed *int64   `json:"seed,omitempty"`
	// Extra carries provider-specific parameters (reasoning_effort,
	// frequency_penalty, ...) that adapters pass through when they know them.
	Extra map[string]any `json:"extra,omitempty"`
}

// Validate reports the first structural problem that every provider would
// reject: no messages, an unknown role, a tool result answering no earlier
// tool call, a tool call or tool spec without a name, duplicate tool names,
// a tool choice naming no tool of the request.
func (r *Request) Validate() error {
	if r == nil {
		return fmt.Errorf("llm: invalid request: nil")
	}
	if len(r.Messages) == 0 {
		return fmt.Errorf("llm: invalid request: no messages")
	}
	for i := range r.Messages {
		m := &r.Messages[i]
		if !m.Role.Valid() {
			return fmt.Errorf("llm: invalid request: messages[%d]: unknown role %q (want system, user, assistant or tool)", i, m.Role)
		}
		for j, c := range m.ToolCalls {
			if m.Role != RoleAssistant {
				return fmt.Errorf("llm: invalid request: messages[%d]: tool calls in a %s message (only assistant messages carry them)", i, m.Role)
			}
			if c.Name == "" {
				return fmt.Errorf("llm: invalid request: messages[%d].tool_calls[%d]: no tool name", i, j)
			}
		}
		if m.Role == RoleTool {
			if m.ToolCallID == "" {
				return fmt.Errorf("llm: invalid request: messages[%d]: tool result without tool_call_id", i)
			}
			if !callBefore(r.Messages[:i], m.ToolCallID) {
				return fmt.Errorf("llm: invalid request: messages[%d]: tool result for %q answers no earlier assistant tool call", i, m.ToolCallID)
			}
		}
	}
	for i, t := range r.Tools {
		if t.Name == "" {
			return fmt.Errorf("llm: invalid request: tools[%d]: no name", i)
		}
		for _, u := range r.Tools[:i] {
			if u.Name == t.Name {
				return fmt.Errorf("llm: invalid request: tools[%d]: duplicate tool name %q", i, t.Name)
			}
		}
	}
	switch r.ToolChoice {
	case "", ToolChoiceAuto, ToolChoiceNone:
	case ToolChoiceRequired:
		if len(r.Tools) == 0 {
			return fmt.Errorf("llm: invalid request: tool choice %q without tools", r.ToolChoice)
		}
	default:
		if !slices.ContainsFunc(r.Tools, func(t ToolSpec) bool { return t.Name == r.ToolChoice }) {
			return fmt.Errorf("llm: invalid request: tool choice %q names no tool of the request", r.ToolChoice)
		}
	}
	if r.MaxTokens < 0 {
		return fmt.Errorf("llm: invalid request: max_tokens %d is negative", r.MaxTokens)
	}
	if r.ResponseSchema != nil && r.ResponseSchema.Schema == nil {
		return fmt.Errorf("llm: invalid request: response schema %q has no schema", r.ResponseSchema.Name)
	}
	return nil
}

// callBefore reports whether an assistant message in msgs made the call id.
func callBefore(msgs []Message, id string) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls {
			if c.ID == id {
				return true
			}
		}
	}
	return false
}

// TruncateAtStop cuts text at the earliest occurrence of any stop sequence and
// reports whether it did. Empty stop sequences are ignored.
func TruncateAtStop(text string, stop []string) (string, bool) {
	cut := -1
	for _, s := range stop {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return text, false
	}
	return text[:cut], true
}
