package llm

import (
	"context"
	"iter"
	"slices"
	"strings"
)

// StreamFromGenerate returns a stream for models that cannot stream: when
// iterated it calls m.Generate once and yields the whole reply as a text
// chunk, one chunk per tool call, then the response in a last Done chunk.
func StreamFromGenerate(ctx context.Context, m LLM, req *Request) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		resp, err := m.Generate(ctx, req)
		if err != nil {
			yield(Chunk{}, err)
			return
		}
		if text := resp.Text(); text != "" {
			if !yield(Chunk{TextDelta: text}, nil) {
				return
			}
		}
		for i, c := range resp.Message.ToolCalls {
			d := &ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, ArgumentsDelta: string(c.Arguments)}
			if !yield(Chunk{ToolCallDelta: d}, nil) {
				return
			}
		}
		yield(Chunk{Done: resp}, nil)
	}
}

// Collect consumes a stream and returns the response it builds.
//
// When the stream ends with a Done chunk, that response is returned (if it
// carries no message content, the assembled content is filled in). Otherwise
// the response is assembled from the deltas: text deltas concatenated, tool
// call deltas merged by Index (the first non-empty ID and Name win, argument
// pieces are concatenated, empty arguments become "{}") and ordered by Index;
// the finish reason is [FinishToolCalls] when there are tool calls, else
// [FinishStop]. The first error ends the collection and is returned.
func Collect(seq iter.Seq2[Chunk, error]) (*Response, error) {
	var (
		text  strings.Builder
		calls []callBuilder
		done  *Response
	)
	for c, err := range seq {
		if err != nil {
			return nil, err
		}
		if c.Done != nil {
			done = c.Done
			continue
		}
		text.WriteString(c.TextDelta)
		if d := c.ToolCallDelta; d != nil {
			calls = mergeDelta(calls, d)
		}
	}
	if done != nil && (len(done.Message.Parts) > 0 || len(done.Message.ToolCalls) > 0) {
		return done, nil
	}
	resp := done
	if resp == nil {
		resp = &Response{FinishReason: FinishStop}
		if len(calls) > 0 {
			resp.FinishReason = FinishToolCalls
		}
	}
	resp.Message = textMessage(RoleAssistant, text.String())
	if len(calls) > 0 {
		byIndex := func(a, b callBuilder) int { return a.index - b.index }
		if !slices.IsSortedFunc(calls, byIndex) {
			slices.SortStableFunc(calls, byIndex)
		}
		resp.Message.ToolCalls = make([]ToolCall, len(calls))
		for i := range calls {
			resp.Message.ToolCalls[i] = calls[i].call()
		}
	}
	return resp, nil
}

// callBuilder accumulates the deltas of one tool call.
type callBuilder struct {
	index    int
	id, name string
	args     []byte
}

func (b *callBuilder) call() ToolCall {
	args := b.args
	if len(args) == 0 {
		args = []byte("{}")
	}
	return ToolCall{ID: b.id, Name: b.name, Arguments: args}
}

// mergeDelta adds d to the builder for its index, creating it if needed.
func mergeDelta(calls []callBuilder, d *ToolCallDelta) []callBuilder {
	i := len(calls) - 1
	for i >= 0 && calls[i].index != d.Index { // usually the last one
		i--
	}
	if i < 0 {
		if calls == nil {
			calls = make([]callBuilder, 0, 4)
		}
		calls = append(calls, callBuilder{index: d.Index})
		i = len(calls) - 1
	}
	b := &calls[i]
	if b.id == "" {
		b.id = d.ID
	}
	if b.name == "" {
		b.name = d.Name
	}
	b.args = append(b.args, d.ArgumentsDelta...)
	return calls
}
