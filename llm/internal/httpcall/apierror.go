package httpcall

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// A Call names what is being called, for error messages.
type Call struct {
	Provider string
	Model    string
	// Key is the API key in use; it is scrubbed from every message.
	Key string
	// RequestIDHeader names the header carrying the provider's request id.
	RequestIDHeader string
	// VersionedBaseURL, when set, is a base URL that OpenAI-compatible
	// servers expect to end in /v1: a 404 then hints at a missing /v1.
	VersionedBaseURL string
}

// Error turns the outcome of a failed SDK call into the error an adapter
// returns: when ctx is done, the [*llm.TimeoutError] of a call that ran out
// of its own time (see [Call.Bound] and [Call.Watch]), else the caller's
// context error; an [*llm.APIError]
// built from the captured response when the server answered with a failure
// (the SDK's error is not kept, as it holds the request and its credentials);
// otherwise (a transport failure, a stream that broke off) an [*llm.APIError]
// with status 0 wrapping err.
func (c Call) Error(ctx context.Context, capture *Capture, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		if te, ok := context.Cause(ctx).(*llm.TimeoutError); ok {
			return te
		}
		return fmt.Errorf("%s: model %q: %w", c.Provider, c.Model, cerr)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: model %q: %w", c.Provider, c.Model, err)
	}
	if capture != nil {
		if status, header, body := capture.Failure(); status != 0 {
			return c.FromResponse(status, header, body)
		}
	}
	return &llm.APIError{Provider: c.Provider, Model: c.Model, Message: c.Scrub(err.Error()), Err: scrubbed{err: err, text: c.Scrub(err.Error())}}
}

// FromResponse builds the error for a failed response.
func (c Call) FromResponse(status int, header http.Header, body []byte) *llm.APIError {
	msg, code := ParseErrorBody(body)
	if msg == "" {
		msg = http.StatusText(status)
	}
	ae := &llm.APIError{
		Provider:   c.Provider,
		Model:      c.Model,
		Status:     status,
		Code:       c.Scrub(code),
		Message:    c.Scrub(msg),
		RetryAfter: ParseRetryAfter(header, time.Now()),
	}
	if c.RequestIDHeader != "" && header != nil {
		ae.RequestID = header.Get(c.RequestIDHeader)
	}
	if status == http.StatusNotFound {
		ae.Hint = MissingVersionHint(c.VersionedBaseURL)
	}
	return ae
}

// StreamError builds the error for an error event inside a stream: the
// event's JSON is parsed like an error body.
func (c Call) StreamError(data []byte) *llm.APIError {
	msg, code := ParseErrorBody(data)
	return &llm.APIError{Provider: c.Provider, Model: c.Model, Code: c.Scrub(code), Message: c.Scrub(msg)}
}

// Scrub replaces the API key in s.
func (c Call) Scrub(s string) string {
	if len(c.Key) >= 4 && strings.Contains(s, c.Key) {
		s = strings.ReplaceAll(s, c.Key, "[redacted]")
	}
	return s
}

// scrubbed wraps an error, showing a scrubbed text while keeping the chain
// for errors.Is and errors.As (net.Error timeouts stay retryable).
type scrubbed struct {
	err  error
	text string
}

func (s scrubbed) Error() string { return s.text }
func (s scrubbed) Unwrap() error { return s.err }
