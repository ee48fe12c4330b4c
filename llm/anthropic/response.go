package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/troupe-dev/troupe/llm"
)

// response translates a message.
func response(msg *sdk.Message) *llm.Response {
	var text strings.Builder
	var calls []llm.ToolCall
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			args := []byte(b.Input)
			if len(args) == 0 {
				args = []byte("{}")
			}
			calls = append(calls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	return &llm.Response{
		Message:      llm.AssistantToolCalls(text.String(), calls...),
		FinishReason: finishReason(msg.StopReason, len(calls) > 0),
		Usage:        usage(msg.Usage.InputTokens, msg.Usage.OutputTokens, msg.Usage.CacheReadInputTokens, msg.Usage.CacheCreationInputTokens, msg.Usage.OutputTokensDetails.ThinkingTokens),
		Model:        msg.Model,
		ID:           msg.ID,
	}
}

func finishReason(s sdk.StopReason, calls bool) llm.FinishReason {
	switch s {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence, sdk.StopReasonPauseTurn:
		return llm.FinishStop
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return llm.FinishLength
	case sdk.StopReasonToolUse:
		return llm.FinishToolCalls
	case sdk.StopReasonRefusal:
		return llm.FinishContentFilter
	case "":
		if calls {
			return llm.FinishToolCalls
		}
		return llm.FinishStop
	}
	return llm.FinishOther
}

// usage normalizes Anthropic's usage, whose input_tokens leave out cache
// reads and writes.
func usage(input, output, cacheRead, cacheWrite, thinking int64) llm.Usage {
	return llm.Usage{
		InputTokens:         input + cacheRead + cacheWrite,
		OutputTokens:        output,
		CachedInputTokens:   cacheRead,
		CacheCreationTokens: cacheWrite,
		ReasoningTokens:     thinking,
		Requests:            1,
	}
}
