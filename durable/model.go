package durable

import (
	"encoding/json"
	"fmt"

	"github.com/troupe-dev/troupe/internal/jsondata"
	"github.com/troupe-dev/troupe/llm"
)

// A ModelRequest is a model call as an engine records it: the model's
// name, resolved to a client on the worker (credentials never enter a
// payload), and the request.
type ModelRequest struct {
	Model   string
	Request *llm.Request
}

// The wire forms keep tool-call arguments as text (a model may produce
// invalid JSON, which the agent reports back to it) and schema maps as
// Troupe data, so integers stay integers.
type (
	wireCall struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments,omitempty"`
	}
	wireMessage struct {
		Role       llm.Role   `json:"role"`
		Parts      []llm.Part `json:"parts,omitempty"`
		ToolCalls  []wireCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
		Name       string     `json:"name,omitempty"`
	}
	wireResponse struct {
		Message      wireMessage      `json:"message"`
		FinishReason llm.FinishReason `json:"finish_reason"`
		Usage        llm.Usage        `json:"usage"`
		Model        string           `json:"model,omitempty"`
		ID           string           `json:"id,omitempty"`
	}
	wireTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Strict      bool            `json:"strict,omitempty"`
	}
	wireSchema struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict,omitempty"`
	}
	wireRequest struct {
		Name           string          `json:"name"`
		Model          string          `json:"model,omitempty"`
		Messages       []wireMessage   `json:"messages"`
		Tools          []wireTool      `json:"tools,omitempty"`
		ToolChoice     string          `json:"tool_choice,omitempty"`
		ResponseSchema *wireSchema     `json:"response_schema,omitempty"`
		Temperature    *float64        `json:"temperature,omitempty"`
		MaxTokens      int             `json:"max_tokens,omitempty"`
		Stop           []string        `json:"stop,omitempty"`
		TopP           *float64        `json:"top_p,omitempty"`
		Seed           *int64          `json:"seed,omitempty"`
		Extra          json.RawMessage `json:"extra,omitempty"`
	}
)

func toWire(m llm.Message) wireMessage {
	w := wireMessage{Role: m.Role, Parts: m.Parts, ToolCallID: m.ToolCallID, Name: m.Name}
	for _, c := range m.ToolCalls {
		w.ToolCalls = append(w.ToolCalls, wireCall{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
	}
	return w
}

func fromWire(w wireMessage) llm.Message {
	m := llm.Message{Role: w.Role, Parts: w.Parts, ToolCallID: w.ToolCallID, Name: w.Name}
	for _, c := range w.ToolCalls {
		tc := llm.ToolCall{ID: c.ID, Name: c.Name}
		if c.Arguments != "" {
			tc.Arguments = json.RawMessage(c.Arguments)
		}
		m.ToolCalls = append(m.ToolCalls, tc)
	}
	return m
}

// EncodeResponse encodes a model's response recorded for the effect key.
func (c *Codec) EncodeResponse(key string, r *llm.Response) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("durable: effect %s: no model response to encode", key)
	}
	b, err := json.Marshal(wireResponse{Message: toWire(r.Message), FinishReason: r.FinishReason, Usage: r.Usage, Model: r.Model, ID: r.ID})
	if err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode model response: %w", key, err)
	}
	return b, c.check(key, "model response", b)
}

// DecodeResponse decodes what EncodeResponse wrote.
func DecodeResponse(b []byte) (*llm.Response, error) {
	var w wireResponse
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("durable: decode model response: %w", err)
	}
	return &llm.Response{Message: fromWire(w.Message), FinishReason: w.FinishReason, Usage: w.Usage, Model: w.Model, ID: w.ID}, nil
}

// EncodeRequest encodes a model call's request for the effect key.
func (c *Codec) EncodeRequest(key string, mr ModelRequest) ([]byte, error) {
	r := mr.Request
	if r == nil {
		return nil, fmt.Errorf("durable: effect %s: no model request to encode", key)
	}
	w := wireRequest{Name: mr.Model, Model: r.Model, ToolChoice: r.ToolChoice, Temperature: r.Temperature, MaxTokens: r.MaxTokens,
		Stop: r.Stop, TopP: r.TopP, Seed: r.Seed, Messages: make([]wireMessage, len(r.Messages))}
	for i, m := range r.Messages {
		w.Messages[i] = toWire(m)
	}
	var err error
	for _, t := range r.Tools {
		wt := wireTool{Name: t.Name, Description: t.Description, Strict: t.Strict}
		if wt.Parameters, err = dataOrNil(t.Parameters); err != nil {
			return nil, fmt.Errorf("durable: effect %s: tool %q parameters: %w", key, t.Name, err)
		}
		w.Tools = append(w.Tools, wt)
	}
	if rs := r.ResponseSchema; rs != nil {
		w.ResponseSchema = &wireSchema{Name: rs.Name, Strict: rs.Strict}
		if w.ResponseSchema.Schema, err = jsondata.Marshal(rs.Schema); err != nil {
			return nil, fmt.Errorf("durable: effect %s: response schema: %w", key, err)
		}
	}
	if w.Extra, err = dataOrNil(r.Extra); err != nil {
		return nil, fmt.Errorf("durable: effect %s: extra: %w", key, err)
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode model request: %w", key, err)
	}
	return b, c.check(key, "model request", b)
}

// DecodeRequest decodes what EncodeRequest wrote.
func DecodeRequest(b []byte) (ModelRequest, error) {
	var w wireRequest
	if err := json.Unmarshal(b, &w); err != nil {
		return ModelRequest{}, fmt.Errorf("durable: decode model request: %w", err)
	}
	r := &llm.Request{Model: w.Model, ToolChoice: w.ToolChoice, Temperature: w.Temperature, MaxTokens: w.MaxTokens,
		Stop: w.Stop, TopP: w.TopP, Seed: w.Seed, Messages: make([]llm.Message, len(w.Messages))}
	for i, m := range w.Messages {
		r.Messages[i] = fromWire(m)
	}
	var err error
	for _, t := range w.Tools {
		spec := llm.ToolSpec{Name: t.Name, Description: t.Description, Strict: t.Strict}
		if spec.Parameters, err = mapOrNil(t.Parameters); err != nil {
			return ModelRequest{}, fmt.Errorf("durable: decode model request: tool %q: %w", t.Name, err)
		}
		r.Tools = append(r.Tools, spec)
	}
	if ws := w.ResponseSchema; ws != nil {
		r.ResponseSchema = &llm.ResponseSchema{Name: ws.Name, Strict: ws.Strict}
		if r.ResponseSchema.Schema, err = mapOrNil(ws.Schema); err != nil {
			return ModelRequest{}, fmt.Errorf("durable: decode model request: response schema: %w", err)
		}
	}
	if r.Extra, err = mapOrNil(w.Extra); err != nil {
		return ModelRequest{}, fmt.Errorf("durable: decode model request: extra: %w", err)
	}
	return ModelRequest{Model: w.Name, Request: r}, nil
}

func dataOrNil(m map[string]any) (json.RawMessage, error) {
	if m == nil {
		return nil, nil
	}
	return jsondata.Marshal(m)
}

func mapOrNil(b json.RawMessage) (map[string]any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return jsondata.DecodeMap(b)
}
