// Package llm defines Troupe's own vocabulary for talking to language models:
// messages made of parts, tool specifications and tool calls, requests,
// responses, token usage, and the [LLM] interface that provider adapters
// implement (llm/openai, llm/anthropic) and that agents call.
//
// No vendor type appears here. Adapters translate a [Request] into their SDK's
// call and the SDK's answer back into a [Response]; errors from a provider are
// reported as [*APIError] so callers can decide whether to retry with
// [IsRetryable]; the providers retry those themselves unless the context
// comes from [WithoutRetries]. A call that runs out of its own time (see [Config.Timeout],
// [DefaultTimeout] and [DefaultStreamIdleTimeout]) fails with a
// [*TimeoutError].
//
// Model strings follow CrewAI: "openai/gpt-4o", "anthropic/claude-sonnet-4-5",
// "ollama/llama3.1", or a bare name such as "gpt-4o-mini" whose provider is
// inferred ([ParseModel]). A [Config] is read from a CrewAI LLM definition with
// [ConfigFromMap], and a [Providers] registry turns it into an [LLM].
//
// For tests, package llm/fake provides a scripted model that records requests.
//
// Start with [LLM] (llm.go), [Request] (request.go) and the messages
// (message.go); model strings and [Config] are in model.go and config.go.
//
// It imports internal packages only; it must not import provider SDKs
// (they live in llm/openai and llm/anthropic) nor flow or action.
package llm
