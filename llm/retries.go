package llm

import "context"

type noRetriesKey struct{}

// WithoutRetries returns a context under which the providers (llm/openai,
// llm/anthropic) make one attempt per call and return its error, retryable
// or not, instead of retrying rate limits and server errors themselves. A
// durable engine uses it to own the retries: its own retries are recorded
// and replayed, a provider's are invisible to it.
func WithoutRetries(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetriesKey{}, true)
}

// RetriesDisabled reports whether ctx comes from [WithoutRetries].
func RetriesDisabled(ctx context.Context) bool {
	off, _ := ctx.Value(noRetriesKey{}).(bool)
	return off
}
