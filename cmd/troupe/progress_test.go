package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
)

// viewOf feeds events to a fresh view of def, as the terminal would see
// them, and returns the model.
func viewOf(t *testing.T, def string, prices llm.Prices, events ...flow.Event) *progressModel {
	t.Helper()
	d, err := flow.Parse([]byte(def), "flow.yaml")
	require.NoError(t, err)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := newProgressModel(d, prices, t0)
	m.plain = true
	for i, ev := range events {
		ev.Seq = int64(i + 1)
		if ev.Time.IsZero() {
			ev.Time = t0.Add(time.Duration(i+1) * 100 * time.Millisecond)
		}
		next, cmd := m.Update(eventMsg(ev))
		m = next.(*progressModel)
		assert.Nil(t, cmd, "events need no command")
	}
	return m
}

func TestLiveViewWhileRunning(t *testing.T) {
	m := viewOf(t, toolFlow, llm.Prices{"gpt-4o": {Input: 2.5, Output: 10}},
		flow.Event{Kind: flow.FlowStarted},
		flow.Event{Kind: flow.MethodStarted, Method: "answer", Parent: 1},
		flow.Event{Kind: flow.AgentStarted, Method: "answer", Agent: "Support", Parent: 2},
		flow.Event{Kind: flow.LLMStarted, Method: "answer", Agent: "Support", Model: "openai/gpt-4o", Parent: 3},
		flow.Event{Kind: flow.LLMFinished, Method: "answer", Agent: "Support", Model: "gpt-4o-2024-08-06", Parent: 4,
			Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}},
		flow.Event{Kind: flow.ToolStarted, Method: "answer", Tool: "lookup_order", Parent: 3},
		flow.Event{Kind: flow.LLMStream, Method: "answer", Text: "It ships\ntomorr", Parent: 3},
	)
	assert.Equal(t, strings.Join([]string{
		"flow Orders",
		"▶ answer               running   500ms  tokens 1000 in / 100 out  $0.0035",
		"    … agent Support",
		"    ✔ chat gpt-4o  tokens 1000 in / 100 out",
		"    … tool lookup_order",
		"    » tomorr",
		"· check                waiting ",
		"· report               waiting ",
		"running in 700ms · 1 model calls · tokens 1000 in / 100 out · $0.0035",
		"",
	}, "\n"), m.render())
}

func TestLiveViewWhenTheRunEnds(t *testing.T) {
	tests := []struct {
		name   string
		events []flow.Event
		err    error
		want   []string
	}{
		{
			name: "finished",
			events: []flow.Event{
				{Kind: flow.MethodStarted, Method: "answer"},
				{Kind: flow.MethodFinished, Method: "answer", Parent: 1, Duration: 1500 * time.Millisecond},
				{Kind: flow.MethodStarted, Method: "check"},
				{Kind: flow.MethodFinished, Method: "check", Parent: 3, Duration: 2 * time.Millisecond},
				{Kind: flow.MethodStarted, Method: "report"},
				{Kind: flow.MethodFinished, Method: "report", Parent: 5, Duration: time.Millisecond},
			},
			want: []string{"✔ answer               done      1.5s", "✔ check                done      2ms", "✔ report               done      1ms", "finished in "},
		},
		{
			name: "failed, the rest skipped",
			events: []flow.Event{
				{Kind: flow.MethodStarted, Method: "answer"},
				{Kind: flow.ToolStarted, Method: "answer", Tool: "lookup_order", Parent: 1},
				{Kind: flow.ToolFailed, Method: "answer", Tool: "lookup_order", Parent: 2, Err: errors.New("down")},
				{Kind: flow.MethodFailed, Method: "answer", Parent: 1, Duration: time.Second, Err: errors.New("the order book is down\nmore")},
			},
			err: errors.New("boom"),
			want: []string{"✘ answer               failed    1s  the order book is down …", "    ✘ tool lookup_order",
				"- check                skipped", "- report               skipped", "failed in "},
		},
		{
			name:   "paused",
			events: []flow.Event{{Kind: flow.MethodStarted, Method: "answer"}, {Kind: flow.MethodPaused, Method: "answer", Parent: 1, Duration: time.Second}},
			want:   []string{"⏸ answer               paused    1s"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := viewOf(t, toolFlow, nil, tt.events...)
			next, cmd := m.Update(endMsg{err: tt.err})
			require.NotNil(t, cmd, "the view quits")
			out := next.(*progressModel).render()
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
			assert.NotContains(t, out, "running")
		})
	}
}

func TestLiveViewClipsToTheTerminal(t *testing.T) {
	m := viewOf(t, toolFlow, nil, flow.Event{Kind: flow.MethodStarted, Method: "answer"},
		flow.Event{Kind: flow.LLMStream, Method: "answer", Text: strings.Repeat("word ", 40)})
	m.width = 30
	for _, line := range strings.Split(strings.TrimSuffix(m.render(), "\n"), "\n")[:4] {
		assert.LessOrEqual(t, len([]rune(line)), 30, line)
	}
}

func TestProgressFlag(t *testing.T) {
	tests := []struct {
		flag             string
		json, term, asks bool
		want             bool
	}{
		{"auto", false, true, false, true},
		{"auto", false, false, false, false},
		{"auto", true, true, false, false},
		{"auto", false, true, true, false},
		{"always", true, false, false, true},
		{"never", false, true, false, false},
	}
	for _, tt := range tests {
		f := runFlags{asJSON: tt.json}
		f.progress = progressFlag(tt.flag)
		assert.Equal(t, tt.want, wantsLiveView(f, tt.term, tt.asks), "%+v", tt)
	}
	dir := inTempDir(t)
	code, _, errOut := runCLI(t, "run", flowFile(t, dir, "flow.yaml", "name: One\nmethods:\n  only: {start: true, do: {call: expression, expr: \"'hi'\"}}\n"), "--progress", "sometimes")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `want never, auto or always, got "sometimes"`)
}

// TestLiveViewInATerminal runs troupe in tmux and reads the screen.
func TestLiveViewInATerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is needed for the live view test in CI")
		}
		t.Skip("tmux not found; the live view is tested with a fake terminal only")
	}
	src, err := os.Getwd() // the package's folder, before the test leaves it
	require.NoError(t, err)
	dir := inTempDir(t)
	bin := filepath.Join(dir, "troupe")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = src
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	flowFile(t, dir, "flow.yaml", strings.Replace(toolFlow, `        input: "Where is order A-1001?"`,
		"        input: \"Where is order A-1001?\"\n        llm: openai/gpt-4o", 1))
	flowFile(t, dir, "replies.yaml", `replies:
  - match: 'shipped'
    text: It ships tomorrow.
    usage: {input_tokens: 420, output_tokens: 12}
  - tool_calls: [{name: lookup_order, arguments: {order_id: A-1001}}]
    usage: {input_tokens: 310, output_tokens: 25}
    delay: 1500ms
`)
	flowFile(t, dir, "tools.yaml", toolScript)
	flowFile(t, dir, "prices.yaml", "gpt-4o: {input: 2.5, output: 10}\n")

	session := "troupe-view-" + filepath.Base(dir)
	cmd := bin + " run flow.yaml --llm-script replies.yaml --tool-script tools.yaml --prices prices.yaml; echo EXIT=$?; sleep 60"
	require.NoError(t, exec.Command(tmux, "new-session", "-d", "-s", session, "-x", "100", "-y", "30", "-c", dir, cmd).Run())
	defer func() { _ = exec.Command(tmux, "kill-session", "-t", session).Run() }()
	screen := func() string {
		out, err := exec.Command(tmux, "capture-pane", "-p", "-t", session).Output()
		require.NoError(t, err)
		return string(out)
	}
	waitFor := func(text string) string {
		var s string
		for range 300 { // polls for up to 30s; the run takes about 2s
			if s = screen(); strings.Contains(s, text) {
				return s
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%q never showed; the screen:\n%s", text, s)
		return ""
	}
	running := waitFor("running")
	assert.Contains(t, running, "flow Orders")
	assert.Contains(t, running, "▶ answer")
	assert.Contains(t, running, "· check                waiting")

	final := waitFor("EXIT=")
	assert.Contains(t, final, "✔ answer               done")
	assert.Contains(t, final, "✔ report               done")
	assert.Regexp(t, `finished in \S+ · 2 model calls · tokens 730 in / 37 out · \$0\.0022`, final)
	assert.Contains(t, final, "It ships tomorrow. / order not found")
	assert.Contains(t, final, "EXIT=0")
}
