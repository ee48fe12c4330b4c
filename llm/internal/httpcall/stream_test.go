package httpcall

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

func TestStream(t *testing.T) {
	retryable := &llm.APIError{Provider: "p", Status: 503}
	tests := []struct {
		name      string
		chunks    []string // what each attempt emits before failing with its error
		errs      []error
		stopAfter int // yield returns false after this many chunks; 0: never
		wantCalls int
		want      []string // texts yielded, "!" for a yielded error
	}{
		{"retried before the first chunk", []string{"", "ab"}, []error{retryable, nil}, 0, 2, []string{"a", "b"}},
		{"not retried after a chunk", []string{"a", "b"}, []error{retryable, nil}, 0, 1, []string{"a", "!"}},
		{"stopped by the consumer", []string{"abc"}, []error{nil}, 2, 1, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Policy{MaxAttempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
			var got []string
			calls := 0
			p.Stream(context.Background(), func(c llm.Chunk, err error) bool {
				if err != nil {
					got = append(got, "!")
					return false
				}
				got = append(got, c.TextDelta)
				return tt.stopAfter == 0 || len(got) < tt.stopAfter
			}, func(_ context.Context, emit func(llm.Chunk) bool) error {
				calls++
				for _, r := range tt.chunks[calls-1] {
					if !emit(llm.Chunk{TextDelta: string(r)}) {
						return nil
					}
				}
				return tt.errs[calls-1]
			})
			assert.Equal(t, tt.wantCalls, calls)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestForConfig(t *testing.T) {
	tests := []struct {
		name   string
		p      Policy
		extra  map[string]any
		want   int
		errSub string
	}{
		{"retries after the first attempt", Policy{}, map[string]any{"max_retries": int64(4)}, 5, ""},
		{"int zero", Policy{}, map[string]any{"max_retries": 0}, 1, ""},
		{"float zero", Policy{}, map[string]any{"max_retries": 0.0}, 1, ""},
		{"string zero", Policy{}, map[string]any{"max_retries": "0"}, 1, ""},
		{"an explicit policy wins", Policy{MaxAttempts: 2}, map[string]any{"max_retries": int64(4)}, 2, ""},
		{"unset", Policy{}, nil, 0, ""},
		{"fraction", Policy{}, map[string]any{"max_retries": 1.5}, 0, "max_retries"},
		{"checked even when the policy wins", Policy{MaxAttempts: 2}, map[string]any{"max_retries": "many"}, 0, "max_retries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.p.ForConfig(llm.Config{Extra: tt.extra})
			if tt.errSub != "" {
				assert.ErrorContains(t, err, tt.errSub)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.MaxAttempts)
		})
	}
}
