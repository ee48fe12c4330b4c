package openai

import (
	"strings"

	sdk "github.com/openai/openai-go/v3"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/internal/httpcall"
)

// accumulator turns stream chunks into [llm.Chunk]s and assembles the final
// response.
type accumulator struct {
	stopList []string
	stop     *httpcall.StopFilter // nil when the server stops on its own
	text     strings.Builder
	refusal  strings.Builder
	calls    []llm.ToolCall
	index    []int64 // OpenAI's index of each call in calls
	finish   llm.FinishReason
	usage    llm.Usage
	model    string
	id       string
	out      []llm.Chunk
}

func newAccumulator(stop []string) *accumulator {
	return &accumulator{stopList: stop}
}

// add takes one chunk and returns the deltas to yield (valid until the next
// call).
func (a *accumulator) add(c sdk.ChatCompletionChunk) []llm.Chunk {
	a.out = a.out[:0]
	if a.id == "" {
		a.id = c.ID
	}
	if a.model == "" && c.Model != "" {
		a.model = c.Model
		if !supportsStop(c.Model) && len(a.stopList) > 0 {
			a.stop = httpcall.NewStopFilter(a.stopList)
		}
	}
	if c.JSON.Usage.Valid() && (c.Usage.PromptTokens != 0 || c.Usage.CompletionTokens != 0) {
		a.usage = usage(&c.Usage)
	}
	if len(c.Choices) == 0 {
		return a.out
	}
	ch := &c.Choices[0]
	if d := ch.Delta.Content; d != "" {
		if a.stop != nil {
			d = a.stop.Add(d)
		}
		if d != "" {
			a.text.WriteString(d)
			a.out = append(a.out, llm.Chunk{TextDelta: d})
		}
	}
	a.refusal.WriteString(ch.Delta.Refusal)
	for _, tc := range ch.Delta.ToolCalls {
		i := a.callIndex(tc.Index)
		call := &a.calls[i]
		if call.ID == "" {
			call.ID = tc.ID
		}
		if call.Name == "" {
			call.Name = tc.Function.Name
		}
		call.Arguments = append(call.Arguments, tc.Function.Arguments...)
		a.out = append(a.out, llm.Chunk{ToolCallDelta: &llm.ToolCallDelta{
			Index: i, ID: tc.ID, Name: tc.Function.Name, ArgumentsDelta: tc.Function.Arguments,
		}})
	}
	if ch.FinishReason != "" {
		a.finish = finishReason(ch.FinishReason)
	}
	return a.out
}

// callIndex returns the position of the call OpenAI numbers idx, adding it
// when new.
func (a *accumulator) callIndex(idx int64) int {
	for i, x := range a.index {
		if x == idx {
			return i
		}
	}
	a.index = append(a.index, idx)
	a.calls = append(a.calls, llm.ToolCall{})
	return len(a.calls) - 1
}

// end returns the last chunks: the text the stop filter held back, if any,
// and the Done chunk with the assembled response.
func (a *accumulator) end() []llm.Chunk {
	a.out = a.out[:0]
	if a.stop != nil {
		if tail := a.stop.Flush(); tail != "" {
			a.text.WriteString(tail)
			a.out = append(a.out, llm.Chunk{TextDelta: tail})
		}
	}
	return append(a.out, llm.Chunk{Done: a.response()})
}

// response returns the assembled response.
func (a *accumulator) response() *llm.Response {
	text := a.text.String()
	finish := a.finish
	if text == "" && a.refusal.Len() > 0 {
		text, finish = a.refusal.String(), llm.FinishContentFilter
	}
	for i := range a.calls {
		if len(a.calls[i].Arguments) == 0 {
			a.calls[i].Arguments = []byte("{}")
		}
	}
	if finish == "" {
		finish = llm.FinishStop
		if len(a.calls) > 0 {
			finish = llm.FinishToolCalls
		}
	}
	u := a.usage
	u.Requests = 1
	return &llm.Response{
		Message:      llm.AssistantToolCalls(text, a.calls...),
		FinishReason: finish,
		Usage:        u,
		Model:        a.model,
		ID:           a.id,
	}
}
