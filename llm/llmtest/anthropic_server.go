package llmtest

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/troupe-dev/troupe/llm"
)

// AnthropicServer is a loopback server speaking the Messages API wire
// format (POST /v1/messages, JSON or server-sent events), answering with
// scripted replies. It implements [Server].
type AnthropicServer struct {
	script
	url string
}

// NewAnthropicServer starts an AnthropicServer, closed when the test ends.
func NewAnthropicServer(t testing.TB) *AnthropicServer {
	s := &AnthropicServer{}
	srv := newServer(t, http.HandlerFunc(s.serve))
	s.url = srv.URL
	return s
}

// URL returns the base URL to configure clients with.
func (s *AnthropicServer) URL() string { return s.url }

func anthropicError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func (s *AnthropicServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		writeJSON(w, http.StatusNotFound, anthropicError("not_found_error", "no route "+r.Method+" "+r.URL.Path))
		return
	}
	if r.Header.Get("Anthropic-Version") == "" {
		writeJSON(w, http.StatusBadRequest, anthropicError("invalid_request_error", "anthropic-version header is required"))
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, anthropicError("invalid_request_error", "invalid JSON body: "+err.Error()))
		return
	}
	if intVal(body["max_tokens"]) <= 0 {
		writeJSON(w, http.StatusBadRequest, anthropicError("invalid_request_error", "max_tokens: Field required"))
		return
	}
	stream, _ := body["stream"].(bool)
	rec := Received{Request: decodeAnthropic(body), Stream: stream, Header: r.Header.Clone(), Body: object(body)}
	reply, idx, ok := s.next(rec)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, anthropicError("api_error", "llmtest: no reply scripted for this call"))
		return
	}
	if reply.Silent {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Request-Id", fmt.Sprintf("req_%d", idx+1))
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 {
		code := reply.Code
		if code == "" {
			code = "api_error"
		}
		writeJSON(w, reply.Status, anthropicError(code, reply.Error))
		return
	}
	model := str(body["model"])
	id := fmt.Sprintf("msg_%04d", idx+1)
	if !stream {
		if reply.Hang {
			<-r.Context().Done()
			return
		}
		writeJSON(w, http.StatusOK, anthropicMessage(id, model, reply))
		return
	}
	s.stream(w, r, id, model, reply, idx)
}

func anthropicStop(f llm.FinishReason) string {
	switch f {
	case llm.FinishLength:
		return "max_tokens"
	case llm.FinishToolCalls:
		return "tool_use"
	case llm.FinishContentFilter:
		return "refusal"
	}
	return "end_turn"
}

func anthropicUsage(u llm.Usage, output int64) map[string]any {
	return map[string]any{
		"input_tokens":                max(u.InputTokens-u.CachedInputTokens-u.CacheCreationTokens, 0),
		"cache_read_input_tokens":     u.CachedInputTokens,
		"cache_creation_input_tokens": u.CacheCreationTokens,
		"output_tokens":               output,
		"output_tokens_details":       map[string]any{"thinking_tokens": u.ReasoningTokens},
		"service_tier":                "standard",
	}
}

func anthropicMessage(id, model string, r Reply) map[string]any {
	content := []any{}
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for _, c := range r.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": rawJSONValue(args(c))})
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
		"stop_reason": anthropicStop(r.finish()), "stop_sequence": nil,
		"usage": anthropicUsage(r.Usage, r.Usage.OutputTokens),
	}
}

// stream writes the reply as Messages API stream events.
func (s *AnthropicServer) stream(w http.ResponseWriter, r *http.Request, id, model string, reply Reply, idx int) {
	out := startSSE(w)
	start := map[string]any{"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(reply.Usage, 1)}
	out.event("message_start", map[string]any{"type": "message_start", "message": start})
	out.event("ping", map[string]any{"type": "ping"})
	first := true
	hold := func() bool {
		if !first {
			return true
		}
		first = false
		return s.wait(r.Context(), reply, idx)
	}
	block := 0
	if reply.Text != "" {
		out.event("content_block_start", map[string]any{"type": "content_block_start", "index": block,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, p := range split(reply.Text, reply.Pieces) {
			out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": block,
				"delta": map[string]any{"type": "text_delta", "text": p}})
			if !hold() {
				return
			}
		}
		out.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": block})
		block++
	}
	for _, c := range reply.ToolCalls {
		out.event("content_block_start", map[string]any{"type": "content_block_start", "index": block,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		for _, p := range split(args(c), reply.Pieces) {
			out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": block,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
		}
		out.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": block})
		block++
		if !hold() {
			return
		}
	}
	if first && !hold() {
		return
	}
	out.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": anthropicStop(reply.finish()), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": reply.Usage.OutputTokens,
			"output_tokens_details": map[string]any{"thinking_tokens": reply.Usage.ReasoningTokens}}})
	out.event("message_stop", map[string]any{"type": "message_stop"})
}

// decodeAnthropic reads a Messages API request body back into a Request.
func decodeAnthropic(body map[string]any) *llm.Request {
	req := &llm.Request{Model: str(body["model"]), MaxTokens: intVal(body["max_tokens"])}
	known := map[string]bool{"model": true, "max_tokens": true, "system": true, "messages": true, "tools": true,
		"tool_choice": true, "output_config": true, "temperature": true, "top_p": true, "stop_sequences": true, "stream": true}
	switch sys := body["system"].(type) {
	case string:
		req.Messages = append(req.Messages, llm.System(sys))
	case []any:
		for _, b := range sys {
			req.Messages = append(req.Messages, llm.System(str(object(b)["text"])))
		}
	}
	names := map[string]string{} // tool_use id -> tool name
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		req.Messages = append(req.Messages, decodeAnthropicMessage(object(m), names)...)
	}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm := object(t)
		spec := llm.ToolSpec{Name: str(tm["name"]), Description: str(tm["description"])}
		spec.Parameters, _ = tm["input_schema"].(map[string]any)
		req.Tools = append(req.Tools, spec)
	}
	if tc := object(body["tool_choice"]); tc != nil {
		switch str(tc["type"]) {
		case "auto":
			req.ToolChoice = llm.ToolChoiceAuto
		case "any":
			req.ToolChoice = llm.ToolChoiceRequired
		case "none":
			req.ToolChoice = llm.ToolChoiceNone
		case "tool":
			req.ToolChoice = str(tc["name"])
		}
	}
	if f := object(object(body["output_config"])["format"]); str(f["type"]) == "json_schema" {
		rs := &llm.ResponseSchema{}
		rs.Schema, _ = f["schema"].(map[string]any)
		req.ResponseSchema = rs
	}
	req.Temperature = floatPtr(body["temperature"])
	req.TopP = floatPtr(body["top_p"])
	req.Stop = strs(body["stop_sequences"])
	for k, v := range body {
		if !known[k] {
			if req.Extra == nil {
				req.Extra = map[string]any{}
			}
			req.Extra[k] = plain(v)
		}
	}
	return req
}

// decodeAnthropicMessage turns one API message into Troupe messages: a user
// turn's tool_result blocks become tool messages (before any text of the
// same turn).
func decodeAnthropicMessage(m map[string]any, names map[string]string) []llm.Message {
	role := llm.Role(str(m["role"]))
	msg := llm.Message{Role: role}
	var results []llm.Message
	switch c := m["content"].(type) {
	case string:
		msg.Parts = []llm.Part{llm.TextPart(c)}
	case []any:
		for _, b := range c {
			block := object(b)
			switch str(block["type"]) {
			case "text":
				msg.Parts = append(msg.Parts, llm.TextPart(str(block["text"])))
			case "image":
				src := object(block["source"])
				if u := str(src["url"]); u != "" {
					msg.Parts = append(msg.Parts, llm.ImageURLPart(u))
				} else {
					msg.Parts = append(msg.Parts, llm.Part{Kind: llm.PartImage, MIMEType: str(src["media_type"])})
				}
			case "document":
				msg.Parts = append(msg.Parts, llm.Part{Kind: llm.PartFile, URL: str(object(block["source"])["url"])})
			case "tool_use":
				id := str(block["id"])
				names[id] = str(block["name"])
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: str(block["name"]), Arguments: rawJSON(block["input"])})
			case "tool_result":
				id := str(block["tool_use_id"])
				results = append(results, llm.ToolResult(id, names[id], toolResultText(block["content"])))
			}
		}
	}
	if len(msg.Parts) == 0 && len(msg.ToolCalls) == 0 {
		return results
	}
	return append(results, msg)
}

func toolResultText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var text string
		for _, b := range c {
			if bm := object(b); str(bm["type"]) == "text" {
				text += str(bm["text"])
			}
		}
		return text
	}
	return ""
}
