package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/eventlog"
)

func TestEventsRoundTripThroughTrace(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", toolFlow)
	events := filepath.Join(dir, "run.jsonl")
	code, out, errOut := runCLI(t, "run", path,
		"--llm-script", flowFile(t, dir, "replies.yaml", toolReplies),
		"--tool-script", flowFile(t, dir, "tools.yaml", toolScript),
		"--events", events)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "It ships tomorrow.")

	f, err := os.Open(events)
	require.NoError(t, err)
	defer f.Close()
	recs, err := eventlog.Read(f)
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	assert.Equal(t, "flow_started", recs[0].Kind)
	assert.Equal(t, "flow_finished", recs[len(recs)-1].Kind)
	require.NotNil(t, recs[len(recs)-1].Usage, "the run's usage is on flow_finished")
	assert.Positive(t, recs[len(recs)-1].Usage.InputTokens)
	for i, r := range recs {
		assert.Equal(t, int64(i+1), r.Seq, "events are numbered in order")
		assert.Equal(t, "Orders", r.Flow)
	}

	code, out, errOut = runCLI(t, "trace", events)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.GreaterOrEqual(t, len(lines), 8, out)
	assert.Regexp(t, `^✔ flow Orders \(run [0-9a-f-]+\)  \S+  tokens \d+ in / \d+ out$`, lines[0])
	assert.Regexp(t, `^├─ ✔ method answer  \S+  tokens \d+ in / \d+ out$`, lines[1])
	assert.Regexp(t, `^│  └─ ✔ agent Support  `, lines[2])
	assert.Regexp(t, `^│     ├─ ✔ chat \S*  \S+  tokens \d+ in / \d+ out$`, lines[3])
	assert.Regexp(t, `^│     ├─ ✔ tool lookup_order  `, lines[4])
	assert.Regexp(t, `^│     └─ ✔ chat `, lines[5])
	assert.Regexp(t, `^├─ ✔ method check  `, lines[6])
	assert.Regexp(t, `^└─ ✔ method report  `, lines[7])
}

func TestTraceMarksFailures(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", `schema: crewai.flow/v1
name: Broken
methods:
  first:
    start: true
    do: {call: tool, ref: lookup_order, with: {order_id: A-1}}
`)
	tools := flowFile(t, dir, "tools.yaml", "tools:\n  - name: lookup_order\n    replies:\n      - error: the order book is down\n")
	events := filepath.Join(dir, "run.jsonl")
	code, out, errOut := runCLI(t, "run", path, "--tool-script", tools, "--events", events)
	require.Equal(t, 1, code, errOut)
	code, out, errOut = runCLI(t, "trace", events)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^✘ flow Broken .*error: `, out)
	assert.Regexp(t, `(?m)^└─ ✘ method first .*error: .*the order book is down`, out)
}

func TestTraceRejectsWhatIsNoEventLog(t *testing.T) {
	dir := inTempDir(t)
	code, _, errOut := runCLI(t, "trace", flowFile(t, dir, "bad.jsonl", "{\"seq\": 1, \"kind\": \"flow_started\"}\nnot json\n"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "line 2: not an event record")
}

// budgetFlow runs two agents in a row; each model call reports 12 tokens.
const (
	budgetFlow = `schema: crewai.flow/v1
name: Budgeted
config:
  budgets: {max_tokens: 10}
methods:
  first:
    start: true
    do: {call: agent, with: {role: One, goal: Answer, backstory: B., input: "one", llm: openai/gpt-4o}}
  second:
    listen: first
    do: {call: agent, with: {role: Two, goal: Answer, backstory: B., input: "two", llm: openai/gpt-4o}}
`
	budgetReplies = `replies:
  - text: ok
    usage: {input_tokens: 8, output_tokens: 4}
`
	budgetPrices = "gpt-4o: {input: 2.5, output: 10}\n"
)

func TestBudgetStopsACLIRun(t *testing.T) {
	dir := inTempDir(t)
	events := filepath.Join(dir, "run.jsonl")
	code, _, errOut := runCLI(t, "run", flowFile(t, dir, "flow.yaml", budgetFlow),
		"--llm-script", flowFile(t, dir, "replies.yaml", budgetReplies),
		"--prices", flowFile(t, dir, "prices.yaml", budgetPrices), "--events", events)
	require.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, `method "second" failed: not started: flow: run budget max_tokens reached: used 12 of 10`)
	assert.Contains(t, errOut, "Stopped by the run budget max_tokens. Spent so far: tokens 8 in / 4 out, $0.0001.")

	code, out, errOut := runCLI(t, "trace", events, "--prices", filepath.Join(dir, "prices.yaml"))
	require.Equal(t, 0, code, errOut)
	// 8 input tokens at $2.5 and 4 output at $10 a million: $0.00006.
	assert.Regexp(t, `(?m)^└─ ✔ method first .* tokens 8 in / 4 out  \$0\.0001$`, out)
	assert.Regexp(t, `(?m)^      └─ ✔ chat gpt-4o .* \$0\.0001$`, out)
	assert.NotContains(t, out, "method second", "the second method never started")
}

func TestCostBudgetWithoutPricesFailsAtStart(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", strings.Replace(budgetFlow, "max_tokens: 10", "max_cost: 0.01", 1))
	code, _, errOut := runCLI(t, "run", path, "--llm-script", flowFile(t, dir, "replies.yaml", budgetReplies))
	require.Equal(t, 1, code)
	assert.Contains(t, errOut, `no price is known for model "openai/gpt-4o"`)
	assert.NotContains(t, errOut, "Stopped by")
}
