package durable

import (
	"encoding/json"
	"fmt"
)

// A ToolRequest is a tool call as an engine records it: the tool's name,
// resolved on the worker, and the arguments the model wrote, kept as text
// (they may be invalid JSON, which the agent reports back to the model).
type ToolRequest struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// A ToolResult is what an agent keeps of a tool's result: the observation
// text ([action.ObservationText]).
type ToolResult struct {
	Text string `json:"text"`
}

// EncodeTool encodes a tool call's request or result (a ToolRequest or a
// ToolResult) for the effect key.
func (c *Codec) EncodeTool(key string, v any) ([]byte, error) {
	what := "tool result"
	switch v.(type) {
	case ToolRequest:
		what = "tool request"
	case ToolResult:
	default:
		return nil, fmt.Errorf("durable: effect %s: encode tool payload: %T is neither a ToolRequest nor a ToolResult", key, v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode %s: %w", key, what, err)
	}
	return b, c.check(key, what, b)
}

// DecodeToolResult decodes a ToolResult EncodeTool wrote.
func DecodeToolResult(b []byte) (ToolResult, error) {
	var r ToolResult
	if err := json.Unmarshal(b, &r); err != nil {
		return ToolResult{}, fmt.Errorf("durable: decode tool result: %w", err)
	}
	return r, nil
}

// DecodeToolRequest decodes a ToolRequest EncodeTool wrote.
func DecodeToolRequest(b []byte) (ToolRequest, error) {
	var r ToolRequest
	if err := json.Unmarshal(b, &r); err != nil {
		return ToolRequest{}, fmt.Errorf("durable: decode tool request: %w", err)
	}
	return r, nil
}
