package llm

import (
	"context"
	"iter"
)

// An LLM is a language model that answers requests.
//
// Implementations are safe for concurrent use.
type LLM interface {
	// Generate sends req and returns the complete response.
	Generate(ctx context.Context, req *Request) (*Response, error)
	// Stream sends req and yields the response as it is produced. The last
	// chunk carries the assembled response in Done. An error ends the
	// sequence; stopping the iteration early cancels the call.
	Stream(ctx context.Context, req *Request) iter.Seq2[Chunk, error]
}

// A Chunk is one piece of a streamed response.
type Chunk struct {
	// TextDelta is text to append to the reply.
	TextDelta string
	// ToolCallDelta is a piece of a tool call, or nil.
	ToolCallDelta *ToolCallDelta
	// Done is the final assembled response; set on the last chunk only. Any
	// deltas on the same chunk are already part of it.
	Done *Response
}

// A ToolCallDelta is a piece of the tool call at Index (counting from 0 in
// the reply). The first piece of a call usually carries its ID and Name;
// ArgumentsDelta pieces are concatenated.
type ToolCallDelta struct {
	Index          int
	ID             string
	Name           string
	ArgumentsDelta string
}

// Capabilities says what a model can do.
type Capabilities struct {
	ToolCalls         bool // native function calling
	ParallelToolCalls bool // several tool calls in one reply
	StructuredOutput  bool // honors Request.ResponseSchema
	Streaming         bool // Stream yields pieces as they come, not one chunk at the end
}

// A CapabilityReporter is an [LLM] that says what it can do. LLMs that do not
// implement it are assumed to support everything.
type CapabilityReporter interface {
	Capabilities() Capabilities
}

// SupportsToolCalls reports whether m supports native tool calls: what m
// reports when it is a [CapabilityReporter], else true.
func SupportsToolCalls(m LLM) bool {
	if r, ok := m.(CapabilityReporter); ok {
		return r.Capabilities().ToolCalls
	}
	return true
}
