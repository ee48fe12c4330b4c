package llm

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Default timeouts of a model call, used by the providers (llm/openai,
// llm/anthropic) when neither the definition ([Config.Timeout]) nor a Go
// option of the provider sets them. They are generous, to cut off a server
// that accepted the call and went silent, not a slow model.
const (
	// DefaultTimeout bounds a non-streamed call, retries included, and a
	// streamed call until its first event arrives.
	DefaultTimeout = 10 * time.Minute
	// DefaultStreamIdleTimeout bounds the silence between two events of a
	// stream. It never exceeds the call's timeout: a definition's
	// `timeout: 30` bounds the silence of its streams by 30s too.
	DefaultStreamIdleTimeout = 2 * time.Minute
)

// A TimeoutError reports a model call that ran out of its own time (the
// call timeout or the stream idle timeout), as opposed to the caller's
// context. It matches context.DeadlineExceeded with errors.Is and is not
// retried.
type TimeoutError struct {
	Provider string
	Model    string
	// After is the timeout that passed.
	After time.Duration
	// Idle reports a stream that went silent for After between two events;
	// otherwise no reply (for a stream, no first event) came within After.
	Idle bool
}

// Error implements error.
func (e *TimeoutError) Error() string {
	var b strings.Builder
	b.WriteString("llm: ")
	b.WriteString(e.Provider)
	if e.Model != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Model))
	}
	if e.Idle {
		b.WriteString(": the stream went silent for ")
		b.WriteString(e.After.String())
		b.WriteString(" (the stream idle timeout)")
	} else {
		b.WriteString(": no reply within ")
		b.WriteString(e.After.String())
		b.WriteString(" (the call timeout; set timeout, in seconds, in the LLM definition to change it)")
	}
	return b.String()
}

// Unwrap returns context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }
