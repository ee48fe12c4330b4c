package llmtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

// testTimeouts checks a model's own timeouts against a server that goes
// silent. The timeouts are short; nothing asserts how long a call took.
func testTimeouts(t *testing.T, h Harness) {
	const short = 100 * time.Millisecond
	hi := &llm.Request{Messages: []llm.Message{llm.User("hi")}}
	tests := []struct {
		name       string
		call, idle time.Duration
		reply      Reply
		stream     bool
		want       llm.TimeoutError // Provider and Model are not compared
	}{
		{"silent server, Generate", short, time.Hour, Reply{Silent: true}, false, llm.TimeoutError{After: short}},
		{"silent server, Stream", short, time.Hour, Reply{Silent: true}, true, llm.TimeoutError{After: short}},
		{"stream stalls after the first piece", time.Hour, short, Reply{Text: "first piece, then silence", Pieces: 3, Hang: true}, true, llm.TimeoutError{After: short, Idle: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, srv := h.WithTimeouts(t, tt.call, tt.idle)
			srv.Push(tt.reply, Reply{Text: "a retry must not happen"})
			var err error
			if tt.stream {
				_, err = llm.Collect(m.Stream(t.Context(), hi))
			} else {
				_, err = m.Generate(t.Context(), hi)
			}
			require.Error(t, err)
			te, ok := errors.AsType[*llm.TimeoutError](err)
			require.True(t, ok, "want *llm.TimeoutError, got %T: %v", err, err)
			assert.Equal(t, tt.want.After, te.After)
			assert.Equal(t, tt.want.Idle, te.Idle)
			assert.NotEmpty(t, te.Model, "the error names the model")
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.False(t, llm.IsRetryable(err), "a call that used up its time is not retried")
			assert.Contains(t, err.Error(), tt.want.After.String())
			assert.Len(t, srv.Received(), 1)
		})
	}

	t.Run("a slow consumer is not a silent server", func(t *testing.T) {
		m, srv := h.WithTimeouts(t, time.Hour, 30*time.Millisecond)
		srv.Push(Reply{Text: "abcdefgh", Pieces: 4})
		var text strings.Builder
		for c, err := range m.Stream(t.Context(), hi) {
			require.NoError(t, err)
			text.WriteString(c.TextDelta)
			time.Sleep(90 * time.Millisecond) // longer than the idle timeout
		}
		assert.Equal(t, "abcdefgh", text.String())
	})
}
