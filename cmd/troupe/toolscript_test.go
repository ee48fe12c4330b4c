package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	// toolFlow has an agent and a tool action use the tool lookup_order.
	toolFlow = `schema: crewai.flow/v1
name: Orders
methods:
  answer:
    start: true
    do:
      call: agent
      with:
        role: Support
        goal: Answer questions about orders
        backstory: Knows the shop.
        tools: [lookup_order]
        input: "Where is order A-1001?"
  check:
    listen: answer
    do: {call: tool, ref: lookup_order, with: {order_id: B-7}}
  report:
    listen: check
    do: {call: expression, expr: "outputs.answer.raw + ' / ' + outputs.check"}
`
	toolReplies = `replies:
  - match: 'shipped'
    text: It ships tomorrow.
  - tool_calls: [{name: lookup_order, arguments: {order_id: A-1001}}]
`
	toolScript = `tools:
  - name: lookup_order
    description: Look up an order by its id.
    parameters:
      type: object
      properties: {order_id: {type: string}}
      required: [order_id]
    replies:
      - match: {order_id: A-1001}
        result: {status: shipped}
      - result: order not found
`
	// toolReviewFlow pauses for feedback between two tool actions.
	toolReviewFlow = `schema: crewai.flow/v1
name: ToolReview
methods:
  first:
    start: true
    do: {call: tool, ref: lookup_order, with: {order_id: A-1001}}
  review:
    listen: first
    human_feedback: {message: "Refund it?", emit: [refund, keep], default_outcome: keep}
    do: {call: expression, expr: "outputs.first.status"}
  pay_back:
    listen: refund
    do: {call: tool, ref: lookup_order, with: {order_id: B-7}}
`
)

func TestRunWithToolScript(t *testing.T) {
	dir := inTempDir(t)
	code, out, errOut := runCLI(t, "run", flowFile(t, dir, "flow.yaml", toolFlow),
		"--llm-script", flowFile(t, dir, "replies.yaml", toolReplies),
		"--tool-script", flowFile(t, dir, "tools.yaml", toolScript))
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "It ships tomorrow. / order not found\n", out)
	assert.Empty(t, errOut)
}

func TestRunToolScriptFailures(t *testing.T) {
	cases := []struct {
		name   string
		script string // empty: no such file
		stderr []string
	}{
		{name: "invalid script", script: "tools:\n  - name: lookup_order\n    replies: [{times: 0}]\n",
			stderr: []string{"fake: ", "tools.yaml:3:23: tools[0].replies[0].times: must be a positive integer, got 0"}},
		{name: "invalid YAML", script: "tools: [\n", stderr: []string{"tools.yaml:1:8: invalid YAML"}},
		{name: "missing file", stderr: []string{"fake: open ", "no such file"}},
		{name: "tool not scripted", script: "tools:\n  - name: other\n",
			stderr: []string{`"lookup_order" is not registered`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			tools := dir + "/tools.yaml"
			if c.script != "" {
				tools = flowFile(t, dir, "tools.yaml", c.script)
			}
			code, out, errOut := runCLI(t, "run", flowFile(t, dir, "flow.yaml", toolFlow),
				"--llm-script", flowFile(t, dir, "replies.yaml", toolReplies), "--tool-script", tools)
			assert.Equal(t, exitFail, code, errOut)
			assert.Empty(t, out)
			for _, s := range c.stderr {
				assert.Contains(t, errOut, s)
			}
			assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
		})
	}
}

// A paused run says to resume with the same tool script, and the resumed
// run calls the scripted tool again.
func TestResumeWithToolScript(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", toolReviewFlow)
	tools := flowFile(t, dir, "tools.yaml", toolScript)
	code, out, errOut := troupe(t, "", "run", path, "--tool-script", tools)
	require.Equal(t, exitPaused, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "  shipped\n")
	m := flowIDLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, errOut)
	assert.Contains(t, errOut, "troupe resume "+path+" --id "+m[1]+" --tool-script "+tools+" --feedback '<your feedback>'")

	code, out, errOut = troupe(t, "", "resume", path, "--id", m[1], "--tool-script", tools, "--feedback", "refund")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "order not found\n", out)
}

func TestResumeCommandRepeatsToolScript(t *testing.T) {
	got := resumeCommand("flow.yaml", "id-1", runFlags{llmScript: "replies.yaml", toolScript: "tools.yaml", store: defaultStore})
	assert.Equal(t, []string{"troupe", "resume", "flow.yaml", "--id", "id-1",
		"--llm-script", "replies.yaml", "--tool-script", "tools.yaml", "--feedback", "<your feedback>"}, got)
}
