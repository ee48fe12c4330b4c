// Package openai is the [llm.LLM] adapter for OpenAI's Chat Completions API
// and every server that speaks it (Ollama, vLLM, DeepSeek, OpenRouter, Groq,
// Together, LM Studio, ...), built on github.com/openai/openai-go/v3.
//
// It sends messages with text and image parts, tools and tool results,
// parallel tool calls, JSON-Schema structured output (response_format), stop
// sequences, temperature, top_p, seed and max tokens, and reports usage with
// cached and reasoning tokens. Stream yields text and tool-call deltas as
// they arrive and assembles the final response.
//
// The SDK's own retries are turned off: a call is retried by this package on
// 429 and 5xx replies with exponential backoff and jitter, honouring
// Retry-After, within the caller's context and the definition's timeout.
// Failures are [*llm.APIError] values naming the provider, model, status and
// the server's message; the API key never appears in them.
//
// The environment is read only through [WithEnv]; [New] without it uses only
// the configuration.
//
// Start with [New] (openai.go), then request.go, response.go and stream.go.
//
// It imports llm, llm/internal/httpcall and the OpenAI SDK; it must not
// import flow or action.
package openai
