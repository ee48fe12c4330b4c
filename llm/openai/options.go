package openai

import (
	"net/http"
	"time"

	"github.com/troupe-dev/troupe/llm/internal/httpcall"
)

// DefaultBaseURL is OpenAI's API endpoint.
const DefaultBaseURL = "https://api.openai.com/v1"

// An Option changes how [New] builds a model.
type Option func(*options)

type options struct {
	env         func(string) string
	provider    string
	baseURL     string
	baseURLVars []string
	keyVars     []string
	keyOptional bool
	httpClient  *http.Client
	retry       httpcall.Policy
	timeouts    httpcall.Timeouts
}

func defaults() options {
	return options{
		baseURL:     DefaultBaseURL,
		baseURLVars: []string{"OPENAI_BASE_URL", "OPENAI_API_BASE"},
		keyVars:     []string{"OPENAI_API_KEY"},
	}
}

// WithEnv makes the model read its key and base URL from env (os.Getenv, or
// a map lookup in tests) when the configuration does not give them.
func WithEnv(env func(string) string) Option { return func(o *options) { o.env = env } }

// WithProvider sets the provider name used in errors (default: the
// configuration's provider, else "openai").
func WithProvider(name string) Option { return func(o *options) { o.provider = name } }

// WithDefaultBaseURL sets the endpoint used when neither the configuration
// nor the environment names one (default [DefaultBaseURL]).
func WithDefaultBaseURL(url string) Option { return func(o *options) { o.baseURL = url } }

// WithBaseURLVariables sets the environment variables read, in order, for
// the base URL (default OPENAI_BASE_URL, OPENAI_API_BASE).
func WithBaseURLVariables(names ...string) Option {
	return func(o *options) { o.baseURLVars = names }
}

// WithKeyVariables sets the environment variables read, in order, for the
// API key (default OPENAI_API_KEY). The first is named when the key is
// missing.
func WithKeyVariables(names ...string) Option { return func(o *options) { o.keyVars = names } }

// WithoutKey makes a missing key acceptable (Ollama and other local
// servers). A key is never required for a loopback base URL.
func WithoutKey() Option { return func(o *options) { o.keyOptional = true } }

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
