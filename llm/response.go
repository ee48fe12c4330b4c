package llm

// FinishReason says why the model stopped.
type FinishReason string

// The reasons a model stops.
const (
	FinishStop          FinishReason = "stop"           // a natural end or a stop sequence
	FinishLength        FinishReason = "length"         // the token limit was reached
	FinishToolCalls     FinishReason = "tool_calls"     // the model wants tools run
	FinishContentFilter FinishReason = "content_filter" // the provider withheld content
	FinishError         FinishReason = "error"          // the provider reported an error mid-reply
	FinishOther         FinishReason = "other"          // anything else the provider said
)

// A Response is a model's complete answer to a [Request].
type Response struct {
	// Message is the assistant message, with its text and tool calls.
	Message      Message      `json:"message"`
	FinishReason FinishReason `json:"finish_reason"`
	Usage        Usage        `json:"usage"`
	// Model is the model that answered, as the provider names it.
	Model string `json:"model,omitempty"`
	// ID is the provider's id of the response, when it gives one.
	ID string `json:"id,omitempty"`
}

// Text returns the text of the response's message ("" for a nil response).
func (r *Response) Text() string {
	if r == nil {
		return ""
	}
	return r.Message.Text()
}

// ToolCalls returns the tool calls of the response's message.
func (r *Response) ToolCalls() []ToolCall {
	if r == nil {
		return nil
	}
	return r.Message.ToolCalls
}
