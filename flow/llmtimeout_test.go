package flow_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/providers"
)

// TestDefinitionTimeoutEndsSilentModelCall runs an agent whose model server
// accepts the call and never answers, with the definition's llm.timeout.
func TestDefinitionTimeoutEndsSilentModelCall(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	srv.Push(llmtest.Reply{Silent: true})
	def := mustParse(t, fmt.Sprintf(`
schema: crewai.flow/v1
name: Silent
methods:
  answer:
    start: true
    do:
      call: agent
      with:
        role: Support
        goal: Answer
        backstory: Helpful.
        input: "Where is order A1?"
        llm: {model: openai/gpt-4o-mini, base_url: %q, api_key: sk-test-abcdefghijkl, timeout: 0.05}
`, srv.URL()))
	eng := flow.NewEngine(flow.WithModels(providers.Default(func(string) string { return "" })))
	_, err := eng.Run(context.Background(), def, nil)
	require.Error(t, err)
	te, ok := errors.AsType[*llm.TimeoutError](err)
	require.True(t, ok, "want *llm.TimeoutError, got %v", err)
	assert.Equal(t, 50*time.Millisecond, te.After)
	assert.Equal(t, "gpt-4o-mini", te.Model)
	assert.Contains(t, err.Error(), `llm: openai "gpt-4o-mini": no reply within 50ms`)
}
