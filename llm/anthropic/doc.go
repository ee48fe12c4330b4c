// Package anthropic is the [llm.LLM] adapter for Anthropic's Messages API,
// built on github.com/anthropics/anthropic-sdk-go/v2.
//
// System messages become the system prompt; tool calls and results become
// tool_use and tool_result blocks (results answering one turn's parallel
// calls share one user message); a response schema becomes
// output_config.format (json_schema); stop sequences, temperature, top_p and
// max_tokens (default 4096, as the API requires one) are sent. Usage is
// normalized: InputTokens includes cache reads and cache writes, which are
// also reported on their own. Stream yields text and tool input as it
// arrives.
//
// Retries, errors and the environment work as in llm/openai: the SDK's
// retries are off, 429, 5xx and 529 (overloaded) are retried with backoff
// honouring Retry-After, errors are [*llm.APIError] values without the key,
// and ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are read only through
// [WithEnv].
//
// Start with [New] (anthropic.go), then request.go, response.go and
// stream.go.
//
// It imports llm, llm/internal/httpcall and the Anthropic SDK; it must not
// import flow or action.
package anthropic
