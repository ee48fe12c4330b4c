package flow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// A misspelt key in an agent, crew, task or LLM block is kept (CrewAI
// allows extra keys there) but warned about, with the key it resembles.
func TestUnknownKeysInAgentCrewTaskAndLLMBlocks(t *testing.T) {
	crew := func(agent, task, extra string) string {
		return "name: F\nmethods:\n  c:\n    start: true\n    do:\n      call: crew\n      with:\n" +
			"        agents:\n          a: {role: R, goal: G, backstory: B" + agent + "}\n" +
			"        tasks:\n          - {description: D, expected_output: O, agent: a" + task + "}\n" + extra
	}
	agent := func(with string) string {
		return "name: F\nmethods:\n  a:\n    start: true\n    do:\n      call: agent\n      with: {role: R, goal: G, backstory: B, input: hi" + with + "}\n"
	}
	tests := []struct {
		name, src, path, want string
		line                  int
	}{
		{"agent action", agent(", respone_schema: {type: object}"), "methods.a.do.with.respone_schema", `Did you mean "response_schema"?`, 7},
		{"agent action tool", agent(", tool: [search]"), "methods.a.do.with.tool", `Did you mean "tools"?`, 7},
		{"crew agent", crew(", max_iterations: 3", "", ""), "methods.c.do.with.agents.a.max_iterations", `Did you mean "max_iter"?`, 9},
		{"agent settings", crew(", settings: {max_iterr: 3}", "", ""), "methods.c.do.with.agents.a.settings.max_iterr", `Did you mean "max_iter"?`, 9},
		{"task", crew("", ", guardrail_max_retry: 2", ""), "methods.c.do.with.tasks[0].guardrail_max_retry", `Did you mean "guardrail_max_retries"?`, 11},
		{"crew", crew("", "", "        proces: sequential\n"), "methods.c.do.with.proces", `Did you mean "process"?`, 12},
		{"LLM", agent(", llm: {model: openai/gpt-4o-mini, temprature: 0.2}"), "methods.a.do.with.llm.temprature", `Did you mean "temperature"?`, 7},
		{"manager LLM", crew("", "", "        manager_llm: {model: m, max_token: 5}\n"), "methods.c.do.with.manager_llm.max_token", `Did you mean "max_tokens"?`, 12},
		{"feedback LLM", "name: F\nmethods:\n  a:\n    start: true\n    human_feedback: {message: ok, emit: [y, n], llm: {model: m, sead: 1}}\n    do: {call: expression, expr: '1'}\n",
			"methods.a.human_feedback.llm.sead", `Did you mean "seed"?`, 5},
		{"runtime-only task field", crew("", ", id: x", ""), "methods.c.do.with.tasks[0].id", "runtime-only", 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := flow.Parse([]byte(tt.src), "f.yaml")
			require.NoError(t, err)
			require.Len(t, def.Warnings, 1, "%v", def.Warnings)
			d := def.Warnings[0]
			assert.Equal(t, "unknown_key", d.Code)
			assert.Equal(t, tt.path, d.Path)
			assert.Contains(t, d.Message, tt.want)
			assert.Equal(t, tt.line, d.Line)
			assert.Positive(t, d.Column)
		})
	}
}

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
