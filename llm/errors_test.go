package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/llm"
)

func TestAPIErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *llm.APIError
		want string
	}{
		{"minimal", &llm.APIError{Provider: "openai", Message: "boom"}, "llm: openai: boom"},
		{
			"full",
			&llm.APIError{Provider: "anthropic", Model: "claude-3", Status: 529, Code: "overloaded_error", Message: "Overloaded", RetryAfter: 2 * time.Second, RequestID: "req_1"},
			`llm: anthropic "claude-3": status 529 (overloaded_error): Overloaded; retry after 2s; request id req_1`,
		},
		{
			"keys are masked",
			&llm.APIError{Provider: "openai", Status: 401, Message: "Incorrect API key provided: sk-proj-abcdefghijklmnop. Also sk-ant-api03-XYZxyz123456."},
			`llm: openai: status 401: Incorrect API key provided: sk-pro***. Also sk-ant***.`,
		},
		{"short sk- words stay", &llm.APIError{Provider: "p", Message: "task-sk-1 and sk-abc"}, "llm: p: task-sk-1 and sk-abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("x"), false},
		{"429", &llm.APIError{Status: 429}, true},
		{"408", &llm.APIError{Status: 408}, true},
		{"500", &llm.APIError{Status: 500}, true},
		{"529 overloaded", &llm.APIError{Status: 529}, true},
		{"501", &llm.APIError{Status: 501}, false},
		{"400", &llm.APIError{Status: 400}, false},
		{"401", &llm.APIError{Status: 401}, false},
		{"retry-after without status", &llm.APIError{RetryAfter: time.Second}, true},
		{"wrapped 503", fmt.Errorf("agent: %w", &llm.APIError{Status: 503}), true},
		{"network timeout", timeoutErr{}, true},
		{"network timeout inside api error", &llm.APIError{Err: timeoutErr{}}, true},
		{"canceled", context.Canceled, false},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, llm.IsRetryable(tt.err))
		})
	}
}

func TestErrorClassifiers(t *testing.T) {
	tests := []struct {
		msg             string
		context, noTool bool
	}{
		{"This model's maximum context length is 8192 tokens", true, false},
		{"error code: context_length_exceeded", true, false},
		{"prompt is too long: Input is too long for requested model", true, false},
		{"registry.ollama.ai/library/gemma does not support tools", false, true},
		{"Function calling is not supported by this model", false, true},
		{"rate limited", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			err := &llm.APIError{Provider: "p", Status: 400, Message: tt.msg}
			assert.Equal(t, tt.context, llm.IsContextLengthExceeded(err))
			assert.Equal(t, tt.noTool, llm.IsToolsUnsupported(err))
		})
	}
	assert.False(t, llm.IsContextLengthExceeded(nil))
	assert.False(t, llm.IsToolsUnsupported(nil))
}

func TestAPIErrorUnwrap(t *testing.T) {
	cause := errors.New("cause")
	err := fmt.Errorf("x: %w", &llm.APIError{Provider: "p", Err: cause})
	assert.ErrorIs(t, err, cause)
	ae, ok := errors.AsType[*llm.APIError](err)
	assert.True(t, ok)
	assert.Equal(t, "p", ae.Provider)
}
