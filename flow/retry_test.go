package flow_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/openai"
)

// sleepClock is a Clock that records its sleeps and does not wait.
type sleepClock struct{ slept []time.Duration }

func (c *sleepClock) Now() time.Time { return time.Unix(0, 0) }

func (c *sleepClock) Sleep(ctx context.Context, d time.Duration) error {
	c.slept = append(c.slept, d)
	return ctx.Err()
}

const answerFlow = `
schema: crewai.flow/v1
name: Answer
methods:
  answer:
    start: true
    do:
      call: agent
      with: {role: Support, goal: Answer, backstory: Helpful., input: "Where is order 5?", llm: openai/gpt-4o-mini}
`

// TestModelRetriesAreTheEngines scripts server errors before an answer
// from a model whose provider would retry three times itself: with
// WithModelRetries the provider tries once per attempt and the engine
// retries on its clock, so the server sees exactly the engine's attempts.
func TestModelRetriesAreTheEngines(t *testing.T) {
	fail := llmtest.Reply{Status: http.StatusInternalServerError, Error: "boom", Code: "server_error"}
	tests := []struct {
		name     string
		retry    flow.ModelRetry
		replies  []llmtest.Reply
		ok       bool
		requests int
		slept    []time.Duration
	}{
		{"succeeds after two failures", flow.ModelRetry{MaxAttempts: 3, BaseDelay: time.Second},
			[]llmtest.Reply{fail, fail, {Text: "Shipped."}}, true, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"gives up after its attempts", flow.ModelRetry{MaxAttempts: 2, BaseDelay: time.Second},
			[]llmtest.Reply{fail, fail, {Text: "Shipped."}}, false, 2, []time.Duration{time.Second}},
		{"honours Retry-After", flow.ModelRetry{MaxAttempts: 2, BaseDelay: time.Second},
			[]llmtest.Reply{{Status: http.StatusTooManyRequests, Error: "slow down", Code: "rate_limit_exceeded", Header: map[string]string{"Retry-After": "7"}}, {Text: "Shipped."}},
			true, 2, []time.Duration{7 * time.Second}},
		{"does not retry a client error", flow.ModelRetry{MaxAttempts: 3},
			[]llmtest.Reply{{Status: http.StatusBadRequest, Error: "bad", Code: "invalid_request_error"}}, false, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t)
			srv.Push(tt.replies...)
			m, err := openai.New(llm.Config{Model: "openai/gpt-4o-mini", BaseURL: srv.URL(), APIKey: "k"},
				openai.WithRetry(3, time.Millisecond, time.Second))
			require.NoError(t, err)
			clock := &sleepClock{}
			res, err := flow.NewEngine(flow.WithLLM(m), flow.WithClock(clock), flow.WithModelRetries(tt.retry)).
				Run(context.Background(), mustParse(t, answerFlow), nil)
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, "Shipped.", res.Outputs["answer"].(map[string]any)["raw"])
			} else {
				require.Error(t, err)
			}
			assert.Len(t, srv.Received(), tt.requests)
			assert.Equal(t, tt.slept, clock.slept)
		})
	}
}
