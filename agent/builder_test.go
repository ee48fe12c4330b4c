package agent

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuilder(t *testing.T) {
	def, err := New("refunds").
		Description("Handles refunds").
		SystemPrompt("You handle refunds.").
		Model("openai/gpt-4o-mini").Temperature(0.2).MaxTokens(100).
		Tools("query_order").
		Tool(ToolRef{Name: "create_refund_ticket", Approval: ApprovalRequired, Timeout: 5 * time.Second, MaxCalls: 1}).
		MaxSteps(4).Timeout(time.Minute).ToolTimeout(10 * time.Second).RepeatDetection(false).
		ErrorPolicy(ErrorPolicy{MaxRetries: 1, OnError: OnErrorFallback, FallbackMessage: "Sorry."}).
		StateMachine(StateMachine{
			Initial: "start",
			States: []State{
				{Name: "start", Tools: []string{"query_order"}, On: []Transition{{"verified", "verified"}}},
				{Name: "verified", Final: true},
			},
			Events: []Event{{Name: "verified", Condition: `tool == "query_order"`}},
		}).
		Build(WithTools(testRegistry(t)))
	require.NoError(t, err)
	assert.Equal(t, "refunds", def.Name)
	assert.Equal(t, []ToolRef{{Name: "query_order"}, {Name: "create_refund_ticket", Approval: ApprovalRequired, Timeout: 5 * time.Second, MaxCalls: 1}}, def.Tools)
	assert.Equal(t, []string{"start", "verified"}, []string{def.StateMachine.States[0].Name, def.StateMachine.States[1].Name})
	assert.False(t, def.RepeatDetection)
	assert.Equal(t, time.Minute, def.Timeout)
	assert.Equal(t, "", def.File)

	_, err = New("Bad").Model("m").MaxSteps(0).Tools("query_ordr").Build(WithTools(testRegistry(t)))
	var ds Diagnostics
	require.ErrorAs(t, err, &ds)
	var got []string
	for _, d := range ds {
		got = append(got, d.Path+": "+d.Message)
	}
	assert.Equal(t, []string{
		`agent: missing required key "system_prompt"`,
		`agent.name: "Bad" is not a valid agent name: use lower-case letters, digits and _, starting with a letter`,
		`agent.max_steps: max_steps must be at least 1, got 0`,
		`agent.tools[0]: unknown tool "query_ordr" (did you mean "query_order"?)`,
	}, got)
}
