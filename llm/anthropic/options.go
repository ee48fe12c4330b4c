package anthropic

import (
	"net/http"
	"time"

	"github.com/troupe-dev/troupe/llm/internal/httpcall"
)

// DefaultBaseURL is Anthropic's API endpoint.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is sent when neither the request nor the configuration
// caps the reply (the Messages API requires max_tokens).
const DefaultMaxTokens = 4096

// An Option changes how [New] builds a model.
type Option func(*options)

type options struct {
	env        func(string) string
	httpClient *http.Client
	retry      httpcall.Policy
	timeouts   httpcall.Timeouts
}

// WithEnv makes the model read ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL
// from env when the configuration does not give them.
func WithEnv(env func(string) string) Option { return func(o *options) { o.env = env } }

// WithHTTPClient sets the HTTP client (default: a client without timeout;
// the context and the model's timeouts, see [WithTimeouts], bound each
// call).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithRetry sets the number of attempts (default 3, 1 disables retries) and
// the backoff's first and largest delay (zero keeps the defaults: 500ms and
// 30s). A Retry-After longer than maxDelay ends the retries.
func WithRetry(maxAttempts int, baseDelay, maxDelay time.Duration) Option {
	return func(o *options) {
		o.retry.MaxAttempts, o.retry.BaseDelay, o.retry.MaxDelay = maxAttempts, baseDelay, maxDelay
	}
}

// WithTimeouts sets the model's own timeouts: call bounds a non-streamed
// call, retries included, and a stream until its first event; idle bounds
// the silence between two events of a stream (never more than call). Zero
// keeps the default ([llm.DefaultTimeout], [llm.DefaultStreamIdleTimeout]),
// a negative value removes the bound. A timeout in the LLM definition
// ([llm.Config.Timeout]) wins over call. A call that runs out of time fails
// with an [*llm.TimeoutError].
func WithTimeouts(call, idle time.Duration) Option {
	return func(o *options) { o.timeouts = httpcall.Timeouts{Call: call, Idle: idle} }
}
