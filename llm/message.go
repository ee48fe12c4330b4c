package llm

import "strings"

// Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool" // the result of a tool call, answering ToolCallID
)

// Valid reports whether r is one of the four known roles.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// PartKind says what a [Part] carries.
type PartKind string

// The kinds of message parts.
const (
	PartText  PartKind = "text"
	PartImage PartKind = "image" // Data with MIMEType, or URL
	PartFile  PartKind = "file"  // a document (PDF, ...): Data with MIMEType, or URL
)

// A Part is one piece of a message's content: text, or an image or file given
// inline (Data with its MIMEType) or by URL.
type Part struct {
	Kind     PartKind `json:"kind"`
	Text     string   `json:"text,omitempty"`
	MIMEType string   `json:"mime_type,omitempty"`
	Data     []byte   `json:"data,omitempty"`
	URL      string   `json:"url,omitempty"`
}

// TextPart returns a text part.
func TextPart(text string) Part { return Part{Kind: PartText, Text: text} }

// ImagePart returns an inline image part, e.g. ImagePart("image/png", png).
func ImagePart(mimeType string, data []byte) Part {
	return Part{Kind: PartImage, MIMEType: mimeType, Data: data}
}

// ImageURLPart returns an image part referring to url (http(s) or data: URL).
func ImageURLPart(url string) Part { return Part{Kind: PartImage, URL: url} }

// A Message is one turn of a conversation.
//
// An assistant message may carry ToolCalls (with or without text); each call is
// answered by a tool message whose ToolCallID is the call's ID and whose Name is
// the tool's name.
type Message struct {
	Role       Role       `json:"role"`
	Parts      []Part     `json:"parts,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// textMessage builds a message with a single text part, or none when text is
// empty, so that an assistant turn made only of tool calls has no content.
func textMessage(role Role, text string) Message {
	m := Message{Role: role}
	if text != "" {
		m.Parts = []Part{{Kind: PartText, Text: text}}
	}
	return m
}

// System returns a system message with the given text.
func System(text string) Message { return textMessage(RoleSystem, text) }

// User returns a user message with the given text.
func User(text string) Message { return textMessage(RoleUser, text) }

// Assistant returns an assistant message with the given text.
func Assistant(text string) Message { return textMessage(RoleAssistant, text) }

// AssistantToolCalls returns an assistant message carrying tool calls and,
// when text is not empty, text alongside them.
func AssistantToolCalls(text string, calls ...ToolCall) Message {
	m := textMessage(RoleAssistant, text)
	m.ToolCalls = calls
	return m
}

// ToolResult returns the tool message answering the call callID to the tool
// name with the given result text.
func ToolResult(callID, name, text string) Message {
	m := textMessage(RoleTool, text)
	m.ToolCallID = callID
	m.Name = name
	return m
}

// Text returns the message's text parts concatenated; other parts are skipped.
func (m Message) Text() string {
	switch len(m.Parts) {
	case 0:
		return ""
	case 1:
		if m.Parts[0].Kind == PartText || m.Parts[0].Kind == "" {
			return m.Parts[0].Text
		}
		return ""
	}
	n := 0
	for _, p := range m.Parts {
		if p.Kind == PartText || p.Kind == "" {
			n += len(p.Text)
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range m.Parts {
		if p.Kind == PartText || p.Kind == "" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
