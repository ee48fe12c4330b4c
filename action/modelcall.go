package action

import "github.com/troupe-dev/troupe/llm"

// ModelCall is the Detail of llm_call_started, llm_call_completed and
// llm_call_failed events: the parameters of the request and, once the
// model answered, what the response says about itself. It is what tracing
// records on a model call's span.
type ModelCall struct {
	// Provider is the provider of the agent's model ("openai",
	// "anthropic", ...), from its model string; empty when unknown.
	Provider    string   `json:"provider,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Stream      bool     `json:"stream,omitempty"`
	// ResponseID, ResponseModel and FinishReason are set on
	// llm_call_completed.
	ResponseID    string `json:"response_id,omitempty"`
	ResponseModel string `json:"response_model,omitempty"`
	FinishReason  string `json:"finish_reason,omitempty"`
	// Request and Response are the messages themselves, for observers that
	// record content; they are shared, not copied, and valid only while
	// the observer runs. The event log leaves them out.
	Request  *llm.Request  `json:"-"`
	Response *llm.Response `json:"-"`
}

// modelCall returns the detail of a model call's events, or nil when
// nobody observes them.
func (l *loop) modelCall(req *llm.Request, resp *llm.Response) *ModelCall {
	if l.em.obs == nil {
		return nil
	}
	provider, _ := llm.ParseModel(l.spec.ModelName)
	mc := &ModelCall{Provider: provider, Temperature: req.Temperature, TopP: req.TopP, MaxTokens: req.MaxTokens,
		Stream: l.stream, Request: req, Response: resp}
	if resp != nil {
		mc.ResponseID, mc.ResponseModel, mc.FinishReason = resp.ID, resp.Model, string(resp.FinishReason)
	}
	return mc
}
