// Package httpcall holds what the provider adapters (llm/openai,
// llm/anthropic) share around an HTTP call: a retry loop with exponential
// backoff and jitter that honours Retry-After, a middleware capturing the
// status, headers and body of a failed response, and the mapping of such a
// failure to an [*llm.APIError] that never carries the API key.
//
// It imports llm only; it must not import provider SDKs (their adapters
// import it) nor flow or action.
package httpcall
