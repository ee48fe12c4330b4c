// Package llmtest checks that an [llm.LLM] implementation behaves as Troupe
// expects, and provides loopback servers that speak the OpenAI Chat
// Completions and Anthropic Messages wire formats for testing adapters
// without a network.
//
// [Run] is the conformance suite: text replies, a tool round trip, parallel
// tool calls, structured output, streaming (text arriving as it is produced,
// tool-call deltas assembled), usage, errors, retries and cancellation, and,
// when [Harness.WithTimeouts] is set, the model's own timeouts against a
// server that goes silent. A
// [Harness] gives it a fresh model and a [Server] to script the model's next
// replies and to report the requests it received, decoded back into
// [llm.Request] values so the suite can check what went over the wire.
//
//	func TestConformance(t *testing.T) {
//		llmtest.Run(t, llmtest.Harness{
//			Name: "openai",
//			New: func(t *testing.T) (llm.LLM, llmtest.Server) {
//				srv := llmtest.NewOpenAIServer(t)
//				m, err := openai.New(llm.Config{Model: "gpt-4o-mini", BaseURL: srv.URL(), APIKey: "sk-test"})
//				require.NoError(t, err)
//				return m, srv
//			},
//		})
//	}
//
// A server given a Respond function answers each call from the call
// itself (its messages, a header) instead of a queue, for tests whose calls
// come in no fixed order.
//
// Start with [Run] (suite.go) for an adapter's conformance, and the
// loopback servers (openai_server.go, anthropic_server.go).
//
// It imports llm, internal packages and testify; it must not import flow,
// action or provider SDKs.
package llmtest
