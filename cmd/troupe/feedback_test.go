package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reviewFlow asks for feedback on its second method; the listeners of the
// outcomes read outputs.first, which ran before the pause.
const reviewFlow = `schema: crewai.flow/v1
name: Review
state: {type: dict, default: {topic: AI}}
methods:
  first:
    start: true
    do: {call: expression, expr: "'draft-' + state.topic"}
  review:
    listen: first
    human_feedback:
      message: Approve the draft?
      emit: [approved, rejected]
      default_outcome: rejected
    do: {call: expression, expr: "outputs.first + ' (reviewed)'"}
  publish:
    listen: approved
    do: {call: expression, expr: "'Published ' + outputs.first"}
  shelve:
    listen: rejected
    do: {call: expression, expr: "'Shelved ' + outputs.first"}
`

// ttyReader is stdin as an interactive terminal.
type ttyReader struct{ io.Reader }

func (ttyReader) IsTerminal() bool { return true }

// ttyWriter is stderr as an interactive terminal.
type ttyWriter struct{ io.Writer }

func (ttyWriter) IsTerminal() bool { return true }

// troupeTTY runs the command line with stdin on a terminal that types
// input.
func troupeTTY(t *testing.T, input string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, ttyReader{strings.NewReader(input)}, &out, &errOut)
	return code, out.String(), errOut.String()
}

var flowIDLine = regexp.MustCompile(`(?m)^  flow id:  (\S+)$`)

// pausedRun runs reviewFlow without a terminal and returns the flow id the
// pause reports.
func pausedRun(t *testing.T, path string) string {
	t.Helper()
	code, out, errOut := troupe(t, "", "run", path)
	require.Equal(t, exitPaused, code, errOut)
	assert.Empty(t, out)
	m := flowIDLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, errOut)
	return m[1]
}

func TestRunAsksInTerminal(t *testing.T) {
	cases := []struct {
		name, typed, want string
	}{
		{name: "outcome", typed: "approved\n", want: "Published draft-AI\n"},
		{name: "outcome in other case, padded", typed: "  APPROVED \r\n", want: "Published draft-AI\n"},
		{name: "enter takes the default outcome", typed: "\n", want: "Shelved draft-AI\n"},
		{name: "last line without newline", typed: "rejected", want: "Shelved draft-AI\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			code, out, errOut := troupeTTY(t, c.typed, "run", flowFile(t, dir, "flow.yaml", reviewFlow))
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, c.want, out)
			for _, s := range []string{"OUTPUT FOR REVIEW", "draft-AI (reviewed)", "Approve the draft?",
				"Outcomes: approved, rejected (empty feedback: rejected)",
				"(press Enter to skip, or type your feedback)", "Your feedback: "} {
				assert.Contains(t, errOut, s)
			}
		})
	}
}

// End of input at the prompt (Ctrl-D) pauses the run rather than guessing.
func TestRunPausesAtEndOfTerminalInput(t *testing.T) {
	dir := inTempDir(t)
	code, out, errOut := troupeTTY(t, "", "run", flowFile(t, dir, "flow.yaml", reviewFlow))
	assert.Equal(t, exitPaused, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Your feedback: ")
	assert.Contains(t, errOut, "Flow Review paused for human feedback.")
}

func TestRunPausesWithoutTerminal(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", reviewFlow)
	code, out, errOut := troupe(t, "", "run", path)
	require.Equal(t, exitPaused, code, errOut)
	assert.Empty(t, out)
	id := flowIDLine.FindStringSubmatch(errOut)
	require.NotNil(t, id, errOut)
	want := "Flow Review paused for human feedback.\n" +
		"  flow id:  " + id[1] + "\n" +
		"  method:   review\n" +
		"  question: Approve the draft?\n" +
		"  outcomes: approved, rejected (empty feedback: rejected)\n" +
		"Output for review:\n" +
		"  draft-AI (reviewed)\n" +
		"Resume with:\n" +
		"  troupe resume " + path + " --id " + id[1] + " --feedback '<your feedback>'\n"
	assert.Equal(t, want, errOut)
}

func TestResumeContinuesPausedRun(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{name: "outcome", args: []string{"--feedback", "approved"}, want: "Published draft-AI\n"},
		{name: "other outcome", args: []string{"--feedback", "rejected"}, want: "Shelved draft-AI\n"},
		{name: "empty feedback", args: []string{"--feedback", ""}, want: "Shelved draft-AI\n"},
		{name: "no feedback, no terminal", want: "Shelved draft-AI\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			path := flowFile(t, dir, "flow.yaml", reviewFlow)
			id := pausedRun(t, path)
			code, out, errOut := troupe(t, "", append([]string{"resume", path, "--id", id}, c.args...)...)
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, c.want, out)
			assert.Empty(t, errOut)
		})
	}
}

// Without --feedback, resume asks the paused question on a terminal.
func TestResumeAsksInTerminal(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", reviewFlow)
	id := pausedRun(t, path)
	code, out, errOut := troupeTTY(t, "approved\n", "resume", path, "--id", id)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Published draft-AI\n", out)
	assert.Contains(t, errOut, "Approve the draft?")
	assert.Contains(t, errOut, "draft-AI (reviewed)")
}

func TestResumeJSON(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", reviewFlow)
	code, out, errOut := troupe(t, "", "run", path, "--json")
	require.Equal(t, exitPaused, code, errOut)
	var paused struct {
		FlowID  string `json:"flow_id"`
		Outputs map[string]any
		Trace   []string
		Pending map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(out), &paused), out)
	require.NotEmpty(t, paused.FlowID)
	assert.Equal(t, map[string]any{"first": "draft-AI"}, paused.Outputs)
	assert.Equal(t, []string{"first"}, paused.Trace)
	assert.Equal(t, "review", paused.Pending["method"])
	assert.Equal(t, "draft-AI (reviewed)", paused.Pending["output"])

	code, out, errOut = troupe(t, "", "resume", path, "--id", paused.FlowID, "--feedback", "approved", "--json")
	require.Equal(t, exitOK, code, errOut)
	var done map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &done), out)
	assert.ElementsMatch(t, []string{"result", "outputs", "state", "trace", "usage", "warnings"}, keys(done))
	assert.Equal(t, "Published draft-AI", done["result"])
	assert.Equal(t, map[string]any{"first": "draft-AI", "review": "draft-AI (reviewed)", "publish": "Published draft-AI"}, done["outputs"])
}

// A resumed run that finishes is no longer paused: `runs` shows it
// completed and a second resume is refused.
func TestResumeClosesThePause(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", reviewFlow)
	id := pausedRun(t, path)
	code, _, errOut := troupe(t, "", "resume", path, "--id", id, "--feedback", "approved")
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := troupe(t, "", "runs", "--status", "paused", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "[]\n", out, "the resumed run is still listed as paused")

	code, out, errOut = troupe(t, "", "resume", path, "--id", id, "--feedback", "rejected")
	assert.Equal(t, exitFail, code, "a finished run was resumed again: %s", out)
	assert.Contains(t, errOut, "already completed")
}

const persistedFlow = `schema: crewai.flow/v1
name: Counter
persist: {enabled: true}
state: {type: dict, default: {count: 0}}
methods:
  bump:
    start: true
    do: {call: expression, expr: "state.count + 1"}
`

func TestResumeFailures(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, dir string) []string
		code   int
		stderr string
	}{
		{name: "unknown id", code: exitFail, stderr: `No stored run of flow Review with id "nope"`,
			setup: func(t *testing.T, dir string) []string {
				return []string{"resume", flowFile(t, dir, "flow.yaml", reviewFlow), "--id", "nope"}
			}},
		{name: "unknown id in an existing store", code: exitFail, stderr: `with id "nope"`,
			setup: func(t *testing.T, dir string) []string {
				path := flowFile(t, dir, "flow.yaml", reviewFlow)
				pausedRun(t, path)
				return []string{"resume", path, "--id", "nope"}
			}},
		{name: "completed run", code: exitFail, stderr: "already completed",
			setup: func(t *testing.T, dir string) []string {
				path := flowFile(t, dir, "flow.yaml", persistedFlow)
				code, _, errOut := troupe(t, "", "run", path, "--inputs", `{"id": "done-1"}`)
				require.Equal(t, exitOK, code, errOut)
				return []string{"resume", path, "--id", "done-1"}
			}},
		{name: "another flow", code: exitFail, stderr: `belongs to flow "Review"`,
			setup: func(t *testing.T, dir string) []string {
				id := pausedRun(t, flowFile(t, dir, "flow.yaml", reviewFlow))
				other := strings.Replace(reviewFlow, "name: Review", "name: Other", 1)
				return []string{"resume", flowFile(t, dir, "other.yaml", other), "--id", id}
			}},
		{name: "missing file", code: exitFail, stderr: "Invalid definition path: nope.yaml does not exist.",
			setup: func(*testing.T, string) []string { return []string{"resume", "nope.yaml", "--id", "x"} }},
		{name: "no id", code: exitUsage, stderr: `required flag(s) "id" not set`,
			setup: func(t *testing.T, dir string) []string {
				return []string{"resume", flowFile(t, dir, "flow.yaml", reviewFlow)}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			args := c.setup(t, dir)
			code, out, errOut := troupe(t, "", args...)
			assert.Equal(t, c.code, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, c.stderr)
		})
	}
}

func TestShellJoin(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"troupe", "resume", "flows/a.yaml", "--id", "3f2-a"}, "troupe resume flows/a.yaml --id 3f2-a"},
		{[]string{"my flow.yaml"}, "'my flow.yaml'"},
		{[]string{"it's"}, `'it'\''s'`},
		{[]string{""}, "''"},
		{[]string{"$HOME"}, "'$HOME'"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, shellJoin(c.args))
	}
}

func TestReviewText(t *testing.T) {
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"text", "draft", "draft"},
		{"agent output", map[string]any{"raw": "the answer", "agent_role": "Writer"}, "the answer"},
		{"data", map[string]any{"n": int64(1)}, "{\n  \"n\": 1\n}"},
		{"nothing", nil, "(no output)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, reviewText(c.in)) })
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a regular file")
	assert.False(t, isTerminal(strings.NewReader("")))
	assert.True(t, isTerminal(ttyReader{}))
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, isTerminal(null), "a character device that is not a terminal")
}
