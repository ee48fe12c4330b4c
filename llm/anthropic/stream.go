package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/troupe-dev/troupe/llm"
)

// accumulator turns stream events into [llm.Chunk]s and assembles the final
// response.
type accumulator struct {
	text       strings.Builder
	calls      []llm.ToolCall
	blockCall  map[int64]int // content block index -> position in calls
	stop       sdk.StopReason
	input      int64
	output     int64
	cacheRead  int64
	cacheWrite int64
	thinking   int64
	model, id  string
	out        []llm.Chunk
}

// add takes one event and returns the deltas to yield (valid until the next
// call).
func (a *accumulator) add(e sdk.MessageStreamEventUnion) []llm.Chunk {
	a.out = a.out[:0]
	switch e.Type {
	case "message_start":
		u := e.Message.Usage
		a.id, a.model = e.Message.ID, e.Message.Model
		a.input, a.cacheRead, a.cacheWrite = u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens
		a.output = u.OutputTokens
	case "content_block_start":
		if b := e.ContentBlock; b.Type == "tool_use" {
			if a.blockCall == nil {
				a.blockCall = make(map[int64]int, 2)
			}
			a.blockCall[e.Index] = len(a.calls)
			a.calls = append(a.calls, llm.ToolCall{ID: b.ID, Name: b.Name})
			a.out = append(a.out, llm.Chunk{ToolCallDelta: &llm.ToolCallDelta{Index: len(a.calls) - 1, ID: b.ID, Name: b.Name}})
		}
	case "content_block_delta":
		switch e.Delta.Type {
		case "text_delta":
			if e.Delta.Text != "" {
				a.text.WriteString(e.Delta.Text)
				a.out = append(a.out, llm.Chunk{TextDelta: e.Delta.Text})
			}
		case "input_json_delta":
			if i, ok := a.blockCall[e.Index]; ok && e.Delta.PartialJSON != "" {
				a.calls[i].Arguments = append(a.calls[i].Arguments, e.Delta.PartialJSON...)
				a.out = append(a.out, llm.Chunk{ToolCallDelta: &llm.ToolCallDelta{Index: i, ArgumentsDelta: e.Delta.PartialJSON}})
			}
		}
	case "message_delta":
		if e.Delta.StopReason != "" {
			a.stop = e.Delta.StopReason
		}
		u := e.Usage
		a.output = u.OutputTokens
		if u.InputTokens != 0 {
			a.input = u.InputTokens
		}
		if u.CacheReadInputTokens != 0 {
			a.cacheRead = u.CacheReadInputTokens
		}
		if u.CacheCreationInputTokens != 0 {
			a.cacheWrite = u.CacheCreationInputTokens
		}
		a.thinking = u.OutputTokensDetails.ThinkingTokens
	}
	return a.out
}

// response returns the assembled response.
func (a *accumulator) response() *llm.Response {
	for i := range a.calls {
		if len(a.calls[i].Arguments) == 0 {
			a.calls[i].Arguments = []byte("{}")
		}
	}
	return &llm.Response{
		Message:      llm.AssistantToolCalls(a.text.String(), a.calls...),
		FinishReason: finishReason(a.stop, len(a.calls) > 0),
		Usage:        usage(a.input, a.output, a.cacheRead, a.cacheWrite, a.thinking),
		Model:        a.model,
		ID:           a.id,
	}
}
