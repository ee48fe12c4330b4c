package openai

import (
	sdk "github.com/openai/openai-go/v3"

	"github.com/troupe-dev/troupe/llm"
)

// response translates a completion.
func (m *Model) response(c *sdk.ChatCompletion, stop []string) (*llm.Response, error) {
	if c == nil || len(c.Choices) == 0 {
		return nil, &llm.APIError{Provider: m.call.Provider, Model: m.model, Message: "the response has no choices"}
	}
	ch := &c.Choices[0]
	text := ch.Message.Content
	finish := finishReason(ch.FinishReason)
	if text == "" && ch.Message.Refusal != "" {
		text, finish = ch.Message.Refusal, llm.FinishContentFilter
	}
	if !supportsStop(c.Model) {
		text, _ = llm.TruncateAtStop(text, m.stops(&llm.Request{Stop: stop}))
	}
	var calls []llm.ToolCall
	if n := len(ch.Message.ToolCalls); n > 0 {
		calls = make([]llm.ToolCall, 0, n)
		for _, tc := range ch.Message.ToolCalls {
			if tc.Type != "" && tc.Type != "function" {
				continue
			}
			calls = append(calls, toolCall(tc.ID, tc.Function.Name, tc.Function.Arguments))
		}
	}
	if finish == "" {
		finish = llm.FinishStop
		if len(calls) > 0 {
			finish = llm.FinishToolCalls
		}
	}
	return &llm.Response{
		Message:      llm.AssistantToolCalls(text, calls...),
		FinishReason: finish,
		Usage:        usage(&c.Usage),
		Model:        c.Model,
		ID:           c.ID,
	}, nil
}

func toolCall(id, name, args string) llm.ToolCall {
	if args == "" {
		args = "{}"
	}
	return llm.ToolCall{ID: id, Name: name, Arguments: []byte(args)}
}

// finishReason maps OpenAI's finish reasons; "" stays "" for the caller to
// infer.
func finishReason(s string) llm.FinishReason {
	switch s {
	case "":
		return ""
	case "stop":
		return llm.FinishStop
	case "length":
		return llm.FinishLength
	case "tool_calls", "function_call":
		return llm.FinishToolCalls
	case "content_filter":
		return llm.FinishContentFilter
	}
	return llm.FinishOther
}

// usage normalizes OpenAI's usage: prompt tokens already include cached
// ones, completion tokens include reasoning ones.
func usage(u *sdk.CompletionUsage) llm.Usage {
	return llm.Usage{
		InputTokens:         u.PromptTokens,
		OutputTokens:        u.CompletionTokens,
		CachedInputTokens:   u.PromptTokensDetails.CachedTokens,
		CacheCreationTokens: u.PromptTokensDetails.CacheWriteTokens,
		ReasoningTokens:     u.CompletionTokensDetails.ReasoningTokens,
		Requests:            1,
	}
}
