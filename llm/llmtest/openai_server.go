package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// OpenAIServer is a loopback server speaking the Chat Completions wire
// format (POST /v1/chat/completions, JSON or server-sent events), answering
// with scripted replies. It implements [Server].
type OpenAIServer struct {
	script
	url string
}

// NewOpenAIServer starts an OpenAIServer, closed when the test ends.
func NewOpenAIServer(t testing.TB) *OpenAIServer {
	s := &OpenAIServer{}
	srv := newServer(t, http.HandlerFunc(s.serve))
	s.url = srv.URL + "/v1"
	return s
}

// URL returns the base URL to configure clients with (ending in /v1).
func (s *OpenAIServer) URL() string { return s.url }

func (s *OpenAIServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeJSON(w, http.StatusNotFound, openaiError("no route "+r.Method+" "+r.URL.Path, "invalid_request_error", ""))
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, openaiError("invalid JSON body: "+err.Error(), "invalid_request_error", ""))
		return
	}
	stream, _ := body["stream"].(bool)
	rec := Received{Request: decodeOpenAI(body), Stream: stream, Header: r.Header.Clone(), Body: object(body)}
	reply, idx, ok := s.next(rec)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, openaiError("llmtest: no reply scripted for this call", "server_error", ""))
		return
	}
	if reply.Silent {
		<-r.Context().Done()
		return
	}
	w.Header().Set("X-Request-Id", fmt.Sprintf("req_%d", idx+1))
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 {
		writeJSON(w, reply.Status, openaiError(reply.Error, "invalid_request_error", reply.Code))
		return
	}
	model := str(body["model"])
	id := fmt.Sprintf("chatcmpl-%d", idx+1)
	if !stream {
		if reply.Hang {
			<-r.Context().Done()
			return
		}
		writeJSON(w, http.StatusOK, openaiCompletion(id, model, reply))
		return
	}
	includeUsage := false
	if so, ok := body["stream_options"].(map[string]any); ok {
		includeUsage, _ = so["include_usage"].(bool)
	}
	s.stream(w, r, id, model, reply, idx, includeUsage)
}

func openaiError(msg, typ, code string) map[string]any {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	return map[string]any{"error": e}
}

func openaiUsage(u llm.Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":     u.InputTokens,
		"completion_tokens": u.OutputTokens,
		"total_tokens":      u.InputTokens + u.OutputTokens,
		"prompt_tokens_details": map[string]any{
			"cached_tokens": u.CachedInputTokens, "cache_write_tokens": u.CacheCreationTokens, "audio_tokens": 0,
		},
		"completion_tokens_details": map[string]any{
			"reasoning_tokens": u.ReasoningTokens, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
		},
	}
}

func openaiFinish(f llm.FinishReason) string {
	switch f {
	case llm.FinishLength:
		return "length"
	case llm.FinishToolCalls:
		return "tool_calls"
	case llm.FinishContentFilter:
		return "content_filter"
	}
	return "stop"
}

func openaiCompletion(id, model string, r Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	if len(r.ToolCalls) > 0 {
		calls := make([]any, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			calls[i] = map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": args(c)}}
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"system_fingerprint": "fp_llmtest", "service_tier": "default",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil,
			"finish_reason": openaiFinish(r.finish())}},
		"usage": openaiUsage(r.Usage),
	}
}

// stream writes the reply as chat.completion.chunk events.
func (s *OpenAIServer) stream(w http.ResponseWriter, r *http.Request, id, model string, reply Reply, idx int, includeUsage bool) {
	out := startSSE(w)
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"system_fingerprint": "fp_llmtest",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	out.event("", chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil))
	first := true
	hold := func() bool {
		if !first {
			return true
		}
		first = false
		return s.wait(r.Context(), reply, idx)
	}
	for _, p := range split(reply.Text, reply.Pieces) {
		out.event("", chunk(map[string]any{"content": p}, nil))
		if !hold() {
			return
		}
	}
	for i, c := range reply.ToolCalls {
		out.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		for _, p := range split(args(c), reply.Pieces) {
			out.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": p}}}}, nil))
		}
		if !hold() {
			return
		}
	}
	if first && !hold() {
		return
	}
	out.event("", chunk(map[string]any{}, openaiFinish(reply.finish())))
	if includeUsage {
		out.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{}, "usage": openaiUsage(reply.Usage)})
	}
	out.event("", "[DONE]")
}

// decodeOpenAI reads a Chat Completions request body back into a Request.
func decodeOpenAI(body map[string]any) *llm.Request {
	req := &llm.Request{Model: str(body["model"])}
	known := map[string]bool{"model": true, "messages": true, "tools": true, "tool_choice": true,
		"response_format": true, "temperature": true, "top_p": true, "seed": true, "max_tokens": true,
		"max_completion_tokens": true, "stop": true, "stream": true, "stream_options": true}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		req.Messages = append(req.Messages, decodeOpenAIMessage(object(m)))
	}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		f := object(object(t)["function"])
		spec := llm.ToolSpec{Name: str(f["name"]), Description: str(f["description"])}
		spec.Parameters, _ = f["parameters"].(map[string]any)
		spec.Strict, _ = f["strict"].(bool)
		req.Tools = append(req.Tools, spec)
	}
	switch tc := body["tool_choice"].(type) {
	case string:
		req.ToolChoice = tc
	case map[string]any:
		req.ToolChoice = str(object(tc["function"])["name"])
	}
	if rf := object(body["response_format"]); str(rf["type"]) == "json_schema" {
		js := object(rf["json_schema"])
		rs := &llm.ResponseSchema{Name: str(js["name"])}
		rs.Schema, _ = js["schema"].(map[string]any)
		rs.Strict, _ = js["strict"].(bool)
		req.ResponseSchema = rs
	}
	req.Temperature = floatPtr(body["temperature"])
	req.TopP = floatPtr(body["top_p"])
	if f, ok := num(body["seed"]); ok {
		s := int64(f)
		req.Seed = &s
	}
	req.MaxTokens = intVal(body["max_completion_tokens"])
	if req.MaxTokens == 0 {
		req.MaxTokens = intVal(body["max_tokens"])
	}
	req.Stop = strs(body["stop"])
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

func decodeOpenAIMessage(m map[string]any) llm.Message {
	msg := llm.Message{Role: llm.Role(str(m["role"])), ToolCallID: str(m["tool_call_id"]), Name: str(m["name"])}
	if msg.Role == "developer" {
		msg.Role = llm.RoleSystem
	}
	switch c := m["content"].(type) {
	case string:
		if c != "" {
			msg.Parts = []llm.Part{llm.TextPart(c)}
		}
	case []any:
		for _, p := range c {
			part := object(p)
			switch str(part["type"]) {
			case "text":
				msg.Parts = append(msg.Parts, llm.TextPart(str(part["text"])))
			case "image_url":
				msg.Parts = append(msg.Parts, llm.ImageURLPart(str(object(part["image_url"])["url"])))
			case "file":
				msg.Parts = append(msg.Parts, llm.Part{Kind: llm.PartFile, URL: str(object(part["file"])["file_data"])})
			}
		}
	}
	calls, _ := m["tool_calls"].([]any)
	for _, c := range calls {
		call := object(c)
		f := object(call["function"])
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: str(call["id"]), Name: str(f["name"]),
			Arguments: json.RawMessage(str(f["arguments"]))})
	}
	return msg
}
