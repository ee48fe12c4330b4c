package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

// chunks returns a stream yielding cs, then err if not nil.
func chunks(err error, cs ...llm.Chunk) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		for _, c := range cs {
			if !yield(c, nil) {
				return
			}
		}
		if err != nil {
			yield(llm.Chunk{}, err)
		}
	}
}

func delta(i int, id, name, args string) llm.Chunk {
	return llm.Chunk{ToolCallDelta: &llm.ToolCallDelta{Index: i, ID: id, Name: name, ArgumentsDelta: args}}
}

func TestCollect(t *testing.T) {
	done := &llm.Response{
		Message:      llm.Assistant("full"),
		FinishReason: llm.FinishLength,
		Usage:        llm.Usage{InputTokens: 3, OutputTokens: 1, Requests: 1},
		Model:        "m",
	}
	tests := []struct {
		name   string
		stream iter.Seq2[llm.Chunk, error]
		want   *llm.Response
	}{
		{
			"empty stream",
			chunks(nil),
			&llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, FinishReason: llm.FinishStop},
		},
		{
			"text deltas",
			chunks(nil, llm.Chunk{TextDelta: "Hel"}, llm.Chunk{TextDelta: "lo"}, llm.Chunk{TextDelta: "!"}),
			&llm.Response{Message: llm.Assistant("Hello!"), FinishReason: llm.FinishStop},
		},
		{
			"tool call deltas merged by index and ordered",
			chunks(nil,
				delta(1, "call_b", "lookup", `{"id"`),
				delta(0, "call_a", "search", `{"q":`),
				delta(0, "", "", `"AI"}`),
				delta(1, "", "", `:7}`),
				delta(2, "call_c", "now", ""),
			),
			&llm.Response{
				Message: llm.AssistantToolCalls("",
					llm.ToolCall{ID: "call_a", Name: "search", Arguments: json.RawMessage(`{"q":"AI"}`)},
					llm.ToolCall{ID: "call_b", Name: "lookup", Arguments: json.RawMessage(`{"id":7}`)},
					llm.ToolCall{ID: "call_c", Name: "now", Arguments: json.RawMessage(`{}`)},
				),
				FinishReason: llm.FinishToolCalls,
			},
		},
		{
			"repeated id and name are not doubled",
			chunks(nil, delta(0, "c1", "f", `{"a":`), delta(0, "c1", "f", `1}`)),
			&llm.Response{
				Message:      llm.AssistantToolCalls("", llm.ToolCall{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}),
				FinishReason: llm.FinishToolCalls,
			},
		},
		{
			"text with tool calls",
			chunks(nil, llm.Chunk{TextDelta: "let me look"}, delta(0, "c1", "f", `{}`)),
			&llm.Response{
				Message:      llm.AssistantToolCalls("let me look", llm.ToolCall{ID: "c1", Name: "f", Arguments: json.RawMessage(`{}`)}),
				FinishReason: llm.FinishToolCalls,
			},
		},
		{
			"done is authoritative",
			chunks(nil, llm.Chunk{TextDelta: "fu"}, llm.Chunk{TextDelta: "ll", Done: done}),
			done,
		},
		{
			"done without content is filled from deltas",
			chunks(nil, llm.Chunk{TextDelta: "a"}, llm.Chunk{TextDelta: "b"}, llm.Chunk{Done: &llm.Response{FinishReason: llm.FinishLength, Usage: llm.Usage{OutputTokens: 2, Requests: 1}}}),
			&llm.Response{Message: llm.Assistant("ab"), FinishReason: llm.FinishLength, Usage: llm.Usage{OutputTokens: 2, Requests: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.Collect(tt.stream)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCollectReturnsStreamError(t *testing.T) {
	boom := errors.New("boom")
	got, err := llm.Collect(chunks(boom, llm.Chunk{TextDelta: "partial"}))
	require.ErrorIs(t, err, boom)
	assert.Nil(t, got)
}

// stub is an LLM answering every request with resp or err.
type stub struct {
	resp  *llm.Response
	err   error
	calls int
}

func (s *stub) Generate(context.Context, *llm.Request) (*llm.Response, error) {
	s.calls++
	return s.resp, s.err
}

func (s *stub) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error] {
	return llm.StreamFromGenerate(ctx, s, req)
}

func TestStreamFromGenerate(t *testing.T) {
	resp := &llm.Response{
		Message: llm.AssistantToolCalls("thinking",
			llm.ToolCall{ID: "c1", Name: "search", Arguments: json.RawMessage(`{"q":"x"}`)},
			llm.ToolCall{ID: "c2", Name: "now", Arguments: json.RawMessage(`{}`)},
		),
		FinishReason: llm.FinishToolCalls,
		Usage:        llm.Usage{InputTokens: 1, OutputTokens: 2, Requests: 1},
	}
	m := &stub{resp: resp}
	var got []llm.Chunk
	for c, err := range m.Stream(t.Context(), &llm.Request{}) {
		require.NoError(t, err)
		got = append(got, c)
	}
	require.Len(t, got, 4)
	assert.Equal(t, "thinking", got[0].TextDelta)
	assert.Equal(t, &llm.ToolCallDelta{Index: 1, ID: "c2", Name: "now", ArgumentsDelta: "{}"}, got[2].ToolCallDelta)
	assert.Same(t, resp, got[3].Done)

	collected, err := llm.Collect(m.Stream(t.Context(), &llm.Request{}))
	require.NoError(t, err)
	assert.Equal(t, resp, collected)
	assert.Equal(t, 2, m.calls)
}

func TestStreamFromGenerateError(t *testing.T) {
	boom := errors.New("boom")
	_, err := llm.Collect((&stub{err: boom}).Stream(t.Context(), &llm.Request{}))
	require.ErrorIs(t, err, boom)
}

func TestStreamFromGenerateStopsEarly(t *testing.T) {
	m := &stub{resp: &llm.Response{Message: llm.AssistantToolCalls("x", llm.ToolCall{ID: "a", Name: "f"})}}
	n := 0
	for range m.Stream(t.Context(), &llm.Request{}) {
		n++
		break
	}
	assert.Equal(t, 1, n)
}

func TestSupportsToolCalls(t *testing.T) {
	assert.True(t, llm.SupportsToolCalls(&stub{}), "models that do not say are assumed to support tools")
	assert.False(t, llm.SupportsToolCalls(&noTools{}))
}

type noTools struct{ stub }

func (noTools) Capabilities() llm.Capabilities { return llm.Capabilities{Streaming: true} }
