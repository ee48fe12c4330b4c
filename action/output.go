package action

import (
	"github.com/troupe-dev/troupe/llm"
)

// AgentOutput is the result of an agent run, CrewAI's LiteAgentOutput.
type AgentOutput struct {
	// Raw is the final answer's text (for a structured answer, its JSON).
	Raw string
	// Pydantic is the structured answer as JSON data, or nil without a
	// response schema.
	Pydantic any
	// AgentRole is the agent's role.
	AgentRole string
	// Usage sums the agent's LLM calls in this run.
	Usage llm.Usage
	// Messages is the conversation, system prompt first.
	Messages []llm.Message
	// ToolFailures lists the tool calls that did not succeed.
	ToolFailures []ToolFailure
	// Iterations counts the LLM rounds that ran tools.
	Iterations int
}

// String returns Raw.
func (o *AgentOutput) String() string { return o.Raw }

// Map returns the output as JSON data shaped as CrewAI serializes a
// LiteAgentOutput, so that expressions read outputs.m.raw,
// outputs.m.pydantic.field and outputs.m.usage_metrics.total_tokens.
func (o *AgentOutput) Map() map[string]any {
	return map[string]any{
		"raw":                o.Raw,
		"pydantic":           o.Pydantic,
		"agent_role":         o.AgentRole,
		"usage_metrics":      UsageMap(o.Usage),
		"messages":           messagesData(o.Messages),
		"tool_failures":      failuresData(o.ToolFailures),
		"plan":               nil,
		"todos":              []any{},
		"replan_count":       int64(0),
		"last_replan_reason": nil,
	}
}

// UsageMap returns u with CrewAI's UsageMetrics keys.
func UsageMap(u llm.Usage) map[string]any {
	return map[string]any{
		"total_tokens":          u.Total(),
		"prompt_tokens":         u.InputTokens,
		"cached_prompt_tokens":  u.CachedInputTokens,
		"completion_tokens":     u.OutputTokens,
		"reasoning_tokens":      u.ReasoningTokens,
		"cache_creation_tokens": u.CacheCreationTokens,
		"successful_requests":   u.Requests,
	}
}

// messagesData returns messages as [{role, content}] (plus tool call data
// where present), the shape CrewAI keeps.
func messagesData(msgs []llm.Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		d := map[string]any{"role": string(m.Role), "content": m.Text()}
		if len(m.ToolCalls) > 0 {
			calls := make([]any, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				calls[j] = map[string]any{"id": c.ID, "name": c.Name, "arguments": string(c.Arguments)}
			}
			d["tool_calls"] = calls
		}
		if m.ToolCallID != "" {
			d["tool_call_id"] = m.ToolCallID
			d["name"] = m.Name
		}
		out[i] = d
	}
	return out
}

// failuresData returns failures as JSON data.
func failuresData(fs []ToolFailure) []any {
	out := make([]any, len(fs))
	for i, f := range fs {
		out[i] = map[string]any{"tool": f.Tool, "reason": f.Reason, "message": f.Message, "arguments": string(f.Arguments)}
	}
	return out
}
