package httpcall

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"milliseconds win", http.Header{"Retry-After-Ms": {"150"}, "Retry-After": {"9"}}, 150 * time.Millisecond},
		{"http date", http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ParseRetryAfter(tt.h, now))
		})
	}
}

func TestDelay(t *testing.T) {
	p := Policy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for attempt, base := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 6: time.Second} {
		d, ok := p.Delay(attempt, 0)
		require.True(t, ok)
		assert.GreaterOrEqual(t, d, base/2, "attempt %d", attempt)
		assert.LessOrEqual(t, d, base, "attempt %d", attempt)
	}
	d, ok := p.Delay(1, 300*time.Millisecond)
	assert.True(t, ok)
	assert.Equal(t, 300*time.Millisecond, d, "Retry-After wins")
	_, ok = p.Delay(1, time.Minute)
	assert.False(t, ok, "a Retry-After beyond MaxDelay ends the retries")
}

func TestDo(t *testing.T) {
	retryable := &llm.APIError{Provider: "p", Status: 429, RetryAfter: 40 * time.Millisecond}
	fatal := &llm.APIError{Provider: "p", Status: 400}
	tests := []struct {
		name      string
		errs      []error
		wantCalls int
		wantErr   error
		waits     []time.Duration
	}{
		{"success", []error{nil}, 1, nil, nil},
		{"retry then success", []error{retryable, nil}, 2, nil, []time.Duration{40 * time.Millisecond}},
		{"not retryable", []error{fatal, nil}, 1, fatal, nil},
		{"attempts bounded", []error{retryable, retryable, retryable, nil}, 3, retryable, []time.Duration{40 * time.Millisecond, 40 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var waits []time.Duration
			p := Policy{MaxAttempts: 3, Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			calls := 0
			err := p.Do(context.Background(), func(context.Context) error { calls++; return tt.errs[calls-1] })
			assert.Equal(t, tt.wantCalls, calls)
			assert.Equal(t, tt.wantErr, err)
			assert.Equal(t, tt.waits, waits)
		})
	}
}

func TestDoStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := Policy{BaseDelay: time.Hour, MaxDelay: time.Hour}.Do(ctx, func(context.Context) error {
		calls++
		cancel()
		return &llm.APIError{Status: 503}
	})
	assert.Equal(t, 1, calls)
	assert.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = Policy{}.Do(ctx, func(context.Context) error { return &llm.APIError{Status: 429, RetryAfter: 10 * time.Second} })
	require.Error(t, err)
	assert.Less(t, time.Since(start), time.Second, "a wait beyond the deadline is not started")
}

func TestParseErrorBody(t *testing.T) {
	tests := []struct{ body, msg, code string }{
		{`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Rate limit reached", "rate_limit_exceeded"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded", "overloaded_error"},
		{`{"error":"model 'llama9' not found"}`, "model 'llama9' not found", ""},
		{`{"detail":"Not Found"}`, "Not Found", ""},
		{`upstream timeout`, "upstream timeout", ""},
		{``, "", ""},
	}
	for _, tt := range tests {
		msg, code := ParseErrorBody([]byte(tt.body))
		assert.Equal(t, tt.msg, msg, tt.body)
		assert.Equal(t, tt.code, code, tt.body)
	}
}

func TestCallErrorHidesKey(t *testing.T) {
	c := Call{Provider: "openai", Model: "gpt-4o", Key: "sk-secret-key-123456789", RequestIDHeader: "X-Request-Id"}
	h := http.Header{"X-Request-Id": {"req_9"}, "Retry-After": {"3"}}
	ae := c.FromResponse(401, h, []byte(`{"error":{"message":"Incorrect API key provided: sk-secret-key-123456789","code":"invalid_api_key"}}`))
	assert.NotContains(t, ae.Error(), "sk-secret-key-123456789")
	assert.Contains(t, ae.Error(), "401")
	assert.Contains(t, ae.Error(), "Incorrect API key provided")
	assert.Equal(t, "req_9", ae.RequestID)
	assert.Equal(t, 3*time.Second, ae.RetryAfter)

	err := c.Error(context.Background(), nil, errors.New(`Post "http://x": dial with sk-secret-key-123456789`))
	assert.NotContains(t, err.Error(), "sk-secret-key-123456789")
	assert.False(t, llm.IsRetryable(err))
}

func TestStopFilter(t *testing.T) {
	tests := []struct {
		name   string
		stops  []string
		pieces []string
		want   string
	}{
		{"no stops", nil, []string{"a", "b"}, "ab"},
		{"cut inside a piece", []string{"\nObservation:"}, []string{"Thought\nObs", "ervation: x", "more"}, "Thought"},
		{"false start released", []string{"STOP"}, []string{"ST", "ART and go"}, "START and go"},
		{"earliest wins", []string{"b", "a"}, []string{"xxab"}, "xx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewStopFilter(tt.stops)
			var b strings.Builder
			for _, p := range tt.pieces {
				b.WriteString(f.Add(p))
			}
			b.WriteString(f.Flush())
			assert.Equal(t, tt.want, b.String())
		})
	}
}

func TestIsLocal(t *testing.T) {
	for url, want := range map[string]bool{
		"http://localhost:11434/v1": true, "http://127.0.0.1:8000": true, "http://[::1]:80/v1": true,
		"http://0.0.0.0:1234/v1": true, "https://api.openai.com/v1": false, "not a url\x00": false,
	} {
		assert.Equal(t, want, IsLocal(url), url)
	}
}

func TestMissingVersionHint(t *testing.T) {
	tests := []struct{ base, want string }{
		{"http://localhost:11434", "the base URL http://localhost:11434 has no /v1; OpenAI-compatible servers usually serve under /v1 (try http://localhost:11434/v1)"},
		{"http://localhost:11434/", "the base URL http://localhost:11434 has no /v1; OpenAI-compatible servers usually serve under /v1 (try http://localhost:11434/v1)"},
		{"https://user:secret@proxy.example/api?key=k", "the base URL https://proxy.example/api has no /v1; OpenAI-compatible servers usually serve under /v1 (try https://proxy.example/api/v1)"},
		{"http://localhost:8000/v1", ""},
		{"https://openrouter.ai/api/v1/", ""},
		{"https://generativelanguage.googleapis.com/v1beta/openai", ""},
		{"", ""},
		{"not a url", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, MissingVersionHint(tt.base), tt.base)
	}
}
