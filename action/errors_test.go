package action_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm/fake"
)

// TestAgentErrorsNameTheAgentOnce checks that each layer of an agent's
// error adds its context once.
func TestAgentErrorsNameTheAgentOnce(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"n"}, "properties": map[string]any{"n": map[string]any{"type": "integer"}}}
	cases := map[string]struct {
		model *fake.Model
		task  action.AgentTask
	}{
		"structured output that never matches": {
			model: fake.New(fake.Reply{Text: `{"m": 1}`}),
			task:  action.AgentTask{Input: "count", ResponseSchema: schema},
		},
		"model error": {
			model: fake.New(fake.Reply{Error: "boom", Status: 400}),
			task:  action.AgentTask{Input: "count"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &action.AgentSpec{Role: "Counter", Goal: "Count", Backstory: "Counts.", Model: c.model}
			_, err := action.RunAgent(t.Context(), spec, c.task, nil)
			require.Error(t, err)
			assert.Equal(t, 1, strings.Count(err.Error(), `agent "Counter"`), "%v", err)
			assert.Equal(t, 1, strings.Count(err.Error(), "action: "), "%v", err)
		})
	}
	_, err := action.RunAgent(t.Context(), &action.AgentSpec{Role: "Counter", Goal: "Count", Backstory: "Counts.",
		Model: fake.New(fake.Reply{Text: `{"m": 1}`})}, action.AgentTask{Input: "count", ResponseSchema: schema}, nil)
	var se *action.StructuredOutputError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, "Counter", se.Agent)
}
