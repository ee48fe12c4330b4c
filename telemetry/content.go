package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
)

// content records a piece of content on st's span as the attribute key,
// when content is captured, after the redaction hook. Values that are not
// strings are recorded as JSON.
func (t *Telemetry) content(st *step, key string, v any) {
	if !t.opts.CaptureContent || st == nil || st.span == nil || v == nil {
		return
	}
	if m, ok := v.(interface{ Map() map[string]any }); ok {
		v = m.Map()
	}
	s, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		s = string(b)
	}
	if s == "" {
		return
	}
	if t.opts.Redact != nil {
		if s = t.opts.Redact(key, s); s == "" {
			return
		}
	}
	st.span.SetAttributes(attribute.String(key, s))
}

// A message part and message in the conventions' JSON form of
// gen_ai.input.messages and gen_ai.output.messages.
type part struct {
	Type    string `json:"type"`
	Content string `json:"content,omitempty"`
	Name    string `json:"name,omitempty"`
	ID      string `json:"id,omitempty"`
}

type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

func inputMessages(req *llm.Request) []message {
	out := make([]message, 0, len(req.Messages))
	for _, m := range req.Messages {
		msg := message{Role: string(m.Role)}
		switch text := m.Text(); {
		case m.ToolCallID != "":
			msg.Parts = append(msg.Parts, part{Type: "tool_call_response", ID: m.ToolCallID, Content: text})
		case text != "":
			msg.Parts = append(msg.Parts, part{Type: "text", Content: text})
		}
		for _, tc := range m.ToolCalls {
			msg.Parts = append(msg.Parts, part{Type: "tool_call", Name: tc.Name, ID: tc.ID})
		}
		out = append(out, msg)
	}
	return out
}

func outputMessages(text string, mc *action.ModelCall) []message {
	msg := message{Role: "assistant", Parts: []part{{Type: "text", Content: text}}}
	if mc != nil {
		msg.FinishReason = mc.FinishReason
	}
	return []message{msg}
}

// errorType is the error.type of err: the Go type of the innermost error
// that has a type of its own, "timeout" or "cancelled" for a context's
// errors, "_OTHER" for plain error texts.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	typ := "_OTHER"
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch name := fmt.Sprintf("%T", e); name {
		case "*errors.errorString", "*fmt.wrapError", "*fmt.wrapErrors", "*errors.joinError":
		default:
			typ = name
		}
	}
	return typ
}
