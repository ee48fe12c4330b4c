package flow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// Keys CrewAI or Troupe read in these blocks, including skills and mcps,
// give no warning.
func TestKnownKeysInAgentCrewTaskAndLLMBlocks(t *testing.T) {
	src := `name: F
methods:
  c:
    start: true
    do:
      call: crew
      with:
        process: hierarchical
        verbose: true
        memory: false
        skills: [./skills]
        mcps: [notion]
        planning: true
        planning_llm: {model: m, temperature: 0}
        manager_llm: {model: openai/gpt-4o, max_retries: 2, organization: o, reasoning_effort: low}
        agents:
          a:
            role: R
            goal: G
            backstory: B
            skills: [./skills]
            mcps: ["https://example.com/mcp"]
            max_retry_limit: 1
            reasoning: true
            response_schema: {type: object}
            settings: {max_iter: 3, verbose: true}
            llm: {model: m, base_url: "http://localhost:1/v1", stop: [x]}
        tasks:
          - description: D
            expected_output: O
            agent: a
            guardrail: be brief
            guardrail_max_retries: 2
            markdown: true
            response_schema: {type: object}
`
	def, err := flow.Parse([]byte(src), "f.yaml")
	require.NoError(t, err)
	assert.Empty(t, def.Warnings)
}
