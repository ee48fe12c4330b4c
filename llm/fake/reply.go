package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/troupe-dev/troupe/internal/fakescript"
	"github.com/troupe-dev/troupe/llm"
)

// A Reply is one entry of a script: when it matches a request, and what the
// model answers. Text, JSON and ToolCalls make up an answer (Text may go with
// ToolCalls); Error makes the call fail instead.
type Reply struct {
	// Match is an RE2 expression searched in the request's transcript; empty
	// matches every request.
	Match string
	// Times is how many requests the entry may answer; 0 means unlimited
	// (and the answers of an unlimited entry are not counted).
	Times int
	// Text is the reply's text.
	Text string
	// JSON, when not nil, is encoded as the reply's text (compact, keys
	// sorted, no HTML escaping).
	JSON any
	// ToolCalls are the tool calls of the reply. Without native function
	// calling (see [Model.WithFunctionCalling]) a single call is written as
	// ReAct text instead: "Action: name\nAction Input: arguments".
	ToolCalls []ToolCall
	// Error, when set, makes the call fail with an [*llm.APIError] whose
	// message it is.
	Error string
	// Status is the HTTP status of that error (429 or 5xx make it retryable).
	Status int
	// Usage, when set, is the usage reported; otherwise it is estimated.
	Usage *llm.Usage
	// FinishReason overrides the reported finish reason (tool_calls when the
	// reply has tool calls, else stop).
	FinishReason llm.FinishReason
	// Delay makes the call wait this long first (returning early with the
	// context's error when it is cancelled), to test timeouts and races.
	Delay time.Duration
}

// A ToolCall is a tool call in a reply.
type ToolCall struct {
	// ID is the call's id; empty gets the next of call_1, call_2, ... in the
	// order the model hands them out.
	ID   string
	Name string
	// Arguments is the call's arguments: a string, []byte or json.RawMessage
	// is used verbatim as the JSON text (even when invalid, to test error
	// handling); nil is "{}"; any other value is encoded as JSON.
	Arguments any
}

// Text returns a reply with the given text.
func Text(text string) Reply { return Reply{Text: text} }

// JSON returns a reply whose text is v encoded as JSON.
func JSON(v any) Reply { return Reply{JSON: v} }

// Error returns a reply that makes the call fail with msg.
func Error(msg string) Reply { return Reply{Error: msg} }

// ToolCalls returns a reply that calls tools.
func ToolCalls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call returns a tool call of tool name with the given arguments.
func Call(name string, args any) ToolCall { return ToolCall{Name: name, Arguments: args} }

// Match returns r answering only requests whose transcript matches the RE2
// expression re.
func Match(re string, r Reply) Reply {
	r.Match = re
	return r
}

// Times returns r answering at most n requests.
func Times(n int, r Reply) Reply {
	r.Times = n
	return r
}

// entry is a compiled reply.
type entry struct {
	fakescript.Uses
	re     *regexp.Regexp
	text   string
	calls  []llm.ToolCall
	outLen int // reply length for usage estimation
	err    string
	status int
	usage  *llm.Usage
	finish llm.FinishReason
	delay  time.Duration
}

// compile checks r and prepares what answering with it needs.
func compile(r Reply) (*entry, error) {
	e := &entry{err: r.Error, status: r.Status, finish: r.FinishReason, delay: r.Delay}
	e.Limit(r.Times)
	if r.Match != "" {
		re, err := regexp.Compile(r.Match)
		if err != nil {
			return nil, fakescript.Field("match", fmt.Sprintf("invalid RE2 expression %q: %v", r.Match, err))
		}
		e.re = re
	}
	if r.Times < 0 {
		return nil, fakescript.Field("times", fmt.Sprintf("must be positive (or 0 for unlimited), got %d", r.Times))
	}
	if r.Delay < 0 {
		return nil, fakescript.Field("delay", fmt.Sprintf("must not be negative, got %v", r.Delay))
	}
	if r.Error != "" {
		switch {
		case r.Text != "":
			return nil, fakescript.Field("error", "a reply has either error or text, not both")
		case r.JSON != nil:
			return nil, fakescript.Field("error", "a reply has either error or json, not both")
		case len(r.ToolCalls) > 0:
			return nil, fakescript.Field("error", "a reply has either error or tool_calls, not both")
		}
	} else if r.Status != 0 {
		return nil, fakescript.Field("status", "status is only meaningful with error")
	}
	if r.Usage != nil {
		u := *r.Usage
		e.usage = &u
	}
	e.text = r.Text
	if r.JSON != nil {
		if r.Text != "" {
			return nil, fakescript.Field("json", "a reply has either text or json, not both")
		}
		text, err := encodeJSON(r.JSON)
		if err != nil {
			return nil, fakescript.Field("json", fmt.Sprintf("cannot encode as JSON: %v", err))
		}
		e.text = text
	}
	e.outLen = len(e.text)
	for i, c := range r.ToolCalls {
		if c.Name == "" {
			return nil, fakescript.Field(fmt.Sprintf("tool_calls[%d].name", i), "missing tool name")
		}
		args, err := encodeArguments(c.Arguments)
		if err != nil {
			return nil, fakescript.Field(fmt.Sprintf("tool_calls[%d].arguments", i), fmt.Sprintf("cannot encode as JSON: %v", err))
		}
		e.calls = append(e.calls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		e.outLen += len(c.Name) + len(args)
	}
	return e, nil
}

// encodeJSON encodes v compactly, keys sorted, without HTML escaping.
func encodeJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// encodeArguments turns a ToolCall's Arguments into JSON text.
func encodeArguments(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case string:
		return json.RawMessage(v), nil
	case []byte:
		return json.RawMessage(bytes.Clone(v)), nil
	case json.RawMessage:
		return bytes.Clone(v), nil
	}
	s, err := encodeJSON(v)
	return json.RawMessage(s), err
}
