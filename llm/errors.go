package llm

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"
)

// An APIError is an error reported by a model provider. Adapters return it
// (wrapping the SDK's error in Err) so callers can branch on Status and
// retry with [IsRetryable]. Its text never contains credentials: adapters do
// not put keys in it, and anything that looks like a secret key ("sk-...")
// in Message is masked.
type APIError struct {
	Provider string
	Model    string
	// Status is the HTTP status, or 0 when there was none.
	Status int
	// Code is the provider's error code or type, when it gives one
	// ("rate_limit_exceeded", "overloaded_error", ...).
	Code    string
	Message string
	// RetryAfter is how long the provider asked to wait before retrying.
	RetryAfter time.Duration
	// RequestID is the provider's id of the failed request, for support.
	RequestID string
	// Hint, when set, suggests a likely cause and fix (a base URL missing
	// /v1 for a 404).
	Hint string
	// Err is the underlying error, if any.
	Err error
}

// Error implements error.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("llm: ")
	b.WriteString(e.Provider)
	if e.Model != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Model))
	}
	if e.Status != 0 {
		b.WriteString(": status ")
		b.WriteString(strconv.Itoa(e.Status))
	}
	if e.Code != "" {
		b.WriteString(" (")
		b.WriteString(e.Code)
		b.WriteByte(')')
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(maskSecrets(e.Message))
	}
	if e.RetryAfter > 0 {
		b.WriteString("; retry after ")
		b.WriteString(e.RetryAfter.String())
	}
	if e.RequestID != "" {
		b.WriteString("; request id ")
		b.WriteString(e.RequestID)
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *APIError) Unwrap() error { return e.Err }

// IsRetryable reports whether trying the same call again may succeed: a
// provider error with status 408, 409, 425, 429 or 5xx (other than 501), or
// one that asked to retry after a delay; or a network timeout. Cancellation
// and deadline errors of the caller's context are not retryable.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if ae, ok := errors.AsType[*APIError](err); ok {
		switch s := ae.Status; {
		case s == 408 || s == 409 || s == 425 || s == 429:
			return true
		case s >= 500 && s != 501:
			return true
		case s == 0 && ae.RetryAfter > 0:
			return true
		}
		if ae.Status != 0 || ae.Err == nil {
			return false
		}
	}
	if ne, ok := errors.AsType[net.Error](err); ok {
		return ne.Timeout()
	}
	return false
}

// IsContextLengthExceeded reports whether err says the prompt did not fit
// the model's context window, using the phrases CrewAI recognizes.
func IsContextLengthExceeded(err error) bool {
	return containsAny(err, "maximum context length", "context length exceeded",
		"context_length_exceeded", "context window full", "too many tokens",
		"input is too long", "exceeds token limit", "expected a string with maximum length")
}

// IsToolsUnsupported reports whether err says the model cannot call tools
// natively, using the phrases CrewAI recognizes; an agent then falls back to
// text (ReAct) tool calling.
func IsToolsUnsupported(err error) bool {
	return containsAny(err, "does not support tools", "doesn't support tools",
		"tools are not supported", "tool calling is not supported",
		"tool calls are not supported", "function calling is not supported",
		"does not support function calling")
}

// containsAny reports whether err's text contains one of the phrases,
// ignoring case.
func containsAny(err error, phrases ...string) bool {
	if err == nil {
		return false
	}
	text := strings.ToLower(err.Error())
	for _, p := range phrases {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// maskSecrets masks tokens that look like API keys ("sk-..." followed by at
// least 8 key characters), keeping their first 6 characters.
func maskSecrets(s string) string {
	if !strings.Contains(s, "sk-") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "sk-")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + 3
		for j < len(s) && isKeyChar(s[j]) {
			j++
		}
		b.WriteString(s[:i])
		if j-i-3 >= 8 && (i == 0 || !isKeyChar(s[i-1])) {
			b.WriteString(s[i : i+6])
			b.WriteString("***")
		} else {
			b.WriteString(s[i:j])
		}
		s = s[j:]
	}
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}
