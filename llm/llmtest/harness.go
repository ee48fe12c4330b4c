package llmtest

import (
	"net/http"
	"testing"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// A Reply is what a scripted model answers to its next call: text and tool
// calls, or an error.
type Reply struct {
	Text      string
	ToolCalls []llm.ToolCall
	// Usage is the usage reported, in Troupe's normalized form (servers
	// write it in their wire form).
	Usage llm.Usage
	// FinishReason defaults to tool_calls when there are tool calls, else
	// stop.
	FinishReason llm.FinishReason
	// Pieces is how many pieces streamed text and each call's arguments are
	// split into (default 3).
	Pieces int

	// Status, when not 0, makes the call fail with this HTTP status and the
	// provider error Error of type Code.
	Status int
	Error  string
	Code   string
	// Header is added to the reply (e.g. Retry-After).
	Header map[string]string

	// Gate, when not nil, makes a streaming server wait after the first
	// text piece until Gate is closed (at most GateTimeout), to show that
	// the client sees text before the reply is complete.
	Gate <-chan struct{}
	// Hang makes the server hold the call open (after the first piece when
	// streaming) until the client goes away.
	Hang bool
	// Silent makes the server accept the call and never answer (no status,
	// no header, no byte) until the client goes away.
	Silent bool
}

// GateTimeout bounds how long a server waits on a [Reply] Gate.
const GateTimeout = 5 * time.Second

// Received is one call a [Server] received.
type Received struct {
	// Request is the call decoded back into Troupe's types: messages (a
	// system prompt sent apart becomes the first message), tools, tool
	// choice, response schema, sampling parameters, stop sequences; other
	// body keys go to Extra.
	Request *llm.Request
	// Stream reports whether the client asked for a streamed reply.
	Stream bool
	// Header is the HTTP request's header (nil for in-process models).
	Header http.Header
	// Body is the HTTP request's JSON body (nil for in-process models).
	Body map[string]any
	// GateTimedOut reports that the reply's Gate was not closed in time:
	// the client did not see the first piece while the reply was held.
	GateTimedOut bool
}

// A Server scripts a model's replies and records the calls it receives.
type Server interface {
	// Push queues replies, answered one per call in order. A call with no
	// reply queued fails with status 500.
	Push(replies ...Reply)
	// Received returns the calls received so far.
	Received() []Received
}

// A Harness tells [Run] how to test one implementation.
type Harness struct {
	// Name names the implementation in failures.
	Name string
	// New returns a fresh model and the server that scripts it.
	New func(t *testing.T) (llm.LLM, Server)
	// Retries says the model retries 429 and 5xx replies itself.
	Retries bool
	// Secret, when set, must appear in no error text (the API key).
	Secret string
	// NoSchemaName says the wire format carries no name for a response
	// schema (Anthropic), so the suite does not compare names.
	NoSchemaName bool
	// WithTimeouts, when set, returns a fresh model whose own call timeout
	// (a non-streamed call, and a stream until its first event) is call and
	// whose stream idle timeout (between events) is idle, and the server
	// that scripts it. The suite then checks that a silent server ends the
	// call with an [*llm.TimeoutError].
	WithTimeouts func(t *testing.T, call, idle time.Duration) (llm.LLM, Server)
}
