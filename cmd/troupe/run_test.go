package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs the command line in a fresh working directory (so no .env is
// picked up) and returns the exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// cliFixture returns the absolute path of a conformance fixture, or skips.
func cliFixture(t *testing.T, rel string) string {
	t.Helper()
	dir := os.Getenv("TROUPE_CONFORMANCE")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "conformance", "crewai")
	}
	path, err := filepath.Abs(filepath.Join(dir, rel))
	require.NoError(t, err)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("conformance fixture %s not found (set TROUPE_CONFORMANCE): %v", rel, err)
	}
	return path
}

// inTempDir moves the test into an empty folder, away from any .env, and
// clears the model variables so that no real provider is configured.
func inTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	enter(t, dir)
	return dir
}

// enter moves the test into dir and clears the model variables.
func enter(t *testing.T, dir string) {
	t.Helper()
	t.Chdir(dir)
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TROUPE_MODEL", "MODEL", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"} {
		t.Setenv(k, "")
	}
}

// flowFile writes a file into dir and returns its path.
func flowFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

const (
	agentFlow = `schema: crewai.flow/v1
name: AgentFlow
methods:
  answer:
    start: true
    do:
      call: agent
      with:
        role: Analyst
        goal: Answer questions
        backstory: Knows things.
        input: "${state.question}"
`
	agentReplies = `replies:
  - match: 'Task: What is CrewAI\?'
    text: A framework for agent crews.
    usage: {input_tokens: 12, output_tokens: 6}
`
	failingFlow = `schema: crewai.flow/v1
name: Failing
methods:
  begin:
    start: true
    do: {call: expression, expr: "state.rows.size() > 0 ? 'rows' : 'none'"}
`
)

func TestRunPrintsResult(t *testing.T) {
	cases := []struct {
		name string
		args func(t *testing.T, dir string) []string
		want string
	}{
		// CrewAI: `crewai run --definition flow.yaml --inputs '{"topic":"AI"}'` prints AI.
		{name: "cli_topic_flow", want: "AI\n", args: func(t *testing.T, _ string) []string {
			return []string{"run", cliFixture(t, "valid/cli_topic_flow.yaml"), "--inputs", `{"topic":"AI"}`}
		}},
		{name: "cli_required_input", want: "a@b.com\n", args: func(t *testing.T, _ string) []string {
			return []string{"run", cliFixture(t, "valid/cli_required_input.yaml"), "--inputs", `{"prospect_email":"a@b.com"}`}
		}},
		// The scaffold of `crewai create flow --declarative` prints its default topic.
		{name: "template_scaffold_flow", want: "AI agents\n", args: func(t *testing.T, _ string) []string {
			return []string{"run", cliFixture(t, "valid/template_scaffold_flow.yaml")}
		}},
		// FILE defaults to ./flow.yaml.
		{name: "default file", want: "AI agents\n", args: func(t *testing.T, dir string) []string {
			data, err := os.ReadFile(cliFixture(t, "valid/template_scaffold_flow.yaml"))
			require.NoError(t, err)
			flowFile(t, dir, "flow.yaml", string(data))
			return []string{"run"}
		}},
		{name: "agent with scripted model", want: "A framework for agent crews.\n", args: func(t *testing.T, dir string) []string {
			return []string{"run", flowFile(t, dir, "flow.yaml", agentFlow), "--inputs", `{"question": "What is CrewAI?"}`,
				"--llm-script", flowFile(t, dir, "replies.yaml", agentReplies)}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.args(t, dir) // before entering dir: fixture paths are relative
			enter(t, dir)
			code, out, errOut := runCLI(t, args...)
			assert.Equal(t, exitOK, code, errOut)
			assert.Equal(t, c.want, out)
			assert.Empty(t, errOut)
		})
	}
}

func TestRunJSON(t *testing.T) {
	t.Run("expression", func(t *testing.T) {
		path := cliFixture(t, "valid/cli_topic_flow.yaml")
		inTempDir(t)
		code, out, errOut := runCLI(t, "run", path, "--inputs", `{"topic":"AI"}`, "--json")
		require.Equal(t, exitOK, code, errOut)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		assert.ElementsMatch(t, []string{"result", "outputs", "state", "trace", "usage", "warnings"}, keys(got))
		assert.Equal(t, []any{}, got["warnings"])
		assert.Equal(t, "AI", got["result"])
		assert.Equal(t, map[string]any{"begin": "AI"}, got["outputs"])
		assert.Equal(t, []any{"begin"}, got["trace"])
		state := got["state"].(map[string]any)
		assert.Equal(t, "AI", state["topic"])
		assert.NotEmpty(t, state["id"])
		assert.Equal(t, map[string]any{"input_tokens": 0.0, "output_tokens": 0.0, "requests": 0.0}, got["usage"])
	})
	t.Run("agent", func(t *testing.T) {
		dir := inTempDir(t)
		code, out, errOut := runCLI(t, "run", flowFile(t, dir, "flow.yaml", agentFlow), "--json",
			"--inputs", `{"question": "What is CrewAI?"}`, "--llm-script", flowFile(t, dir, "replies.yaml", agentReplies))
		require.Equal(t, exitOK, code, errOut)
		var got struct {
			Result  map[string]any
			Outputs map[string]map[string]any
			Trace   []string
			Usage   map[string]float64
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		// The result is the agent's output in CrewAI's LiteAgentOutput shape.
		assert.Equal(t, "A framework for agent crews.", got.Result["raw"])
		assert.Equal(t, "Analyst", got.Result["agent_role"])
		assert.Equal(t, got.Result["raw"], got.Outputs["answer"]["raw"])
		assert.Equal(t, []string{"answer"}, got.Trace)
		assert.Equal(t, map[string]float64{"input_tokens": 12, "output_tokens": 6, "requests": 1}, got.Usage)
	})
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestRunFailures(t *testing.T) {
	cases := []struct {
		name    string
		args    func(t *testing.T, dir string) []string
		code    int
		stderr  []string // each must appear
		without []string // none may appear
		lines   int      // when > 0, the exact number of stderr lines
	}{
		{name: "inputs not an object", code: exitFail, lines: 1,
			stderr: []string{"Invalid --inputs JSON: expected an object."},
			args: func(t *testing.T, _ string) []string {
				return []string{"run", cliFixture(t, "valid/cli_topic_flow.yaml"), "--inputs", `["not","an","object"]`}
			}},
		{name: "inputs not JSON", code: exitFail, lines: 1, stderr: []string{"Invalid --inputs JSON: "},
			args: func(t *testing.T, _ string) []string {
				return []string{"run", cliFixture(t, "valid/cli_topic_flow.yaml"), "--inputs", `{topic: AI}`}
			}},
		{name: "missing required input", code: exitFail,
			stderr: []string{"  Missing required input 'prospect_email' — Email address of the prospect to research"},
			args: func(t *testing.T, _ string) []string {
				return []string{"run", cliFixture(t, "valid/cli_required_input.yaml")}
			}},
		// state.default satisfies topic; only audience is missing.
		{name: "defaults satisfy required", code: exitFail,
			stderr: []string{"Missing required input 'audience'"}, without: []string{"'topic'"},
			args: func(t *testing.T, _ string) []string {
				return []string{"run", cliFixture(t, "valid/cli_defaults_required.yaml")}
			}},
		{name: "typed input", code: exitFail, stderr: []string{"Invalid input 'count'"},
			args: func(t *testing.T, _ string) []string {
				return []string{"run", cliFixture(t, "valid/cli_typed_input.yaml"), "--inputs", `{"count":"nope"}`}
			}},
		{name: "invalid definition", code: exitFail, stderr: []string{"Field required"},
			args: func(t *testing.T, _ string) []string {
				return []string{"run", cliFixture(t, "invalid/cli_missing_name.yaml")}
			}},
		{name: "definition not a mapping", code: exitFail, stderr: []string{"Flow declaration must contain a mapping"},
			args: func(t *testing.T, _ string) []string {
				return []string{"run", cliFixture(t, "invalid/cli_list_document.yaml")}
			}},
		{name: "missing file", code: exitFail, lines: 1, stderr: []string{"Invalid definition path: nope.yaml does not exist."},
			args: func(t *testing.T, _ string) []string { return []string{"run", "nope.yaml"} }},
		{name: "folder", code: exitFail, lines: 1, stderr: []string{"is not a file."},
			args: func(t *testing.T, dir string) []string { return []string{"run", dir} }},
		{name: "failing flow", code: exitFail, lines: 1, stderr: []string{`method "begin" failed`},
			args: func(t *testing.T, dir string) []string {
				return []string{"run", flowFile(t, dir, "flow.yaml", failingFlow)}
			}},
		{name: "bad script", code: exitFail, lines: 1, stderr: []string{"fake: ", "replies[0].times"},
			args: func(t *testing.T, dir string) []string {
				return []string{"run", flowFile(t, dir, "flow.yaml", agentFlow),
					"--llm-script", flowFile(t, dir, "replies.yaml", "replies:\n  - times: 0\n")}
			}},
		{name: "script without the reply", code: exitFail, stderr: []string{"no reply matches"},
			args: func(t *testing.T, dir string) []string {
				return []string{"run", flowFile(t, dir, "flow.yaml", agentFlow), "--inputs", `{"question": "Why?"}`,
					"--llm-script", flowFile(t, dir, "replies.yaml", agentReplies)}
			}},
		// An agent with no model fails with one line saying how to configure one.
		{name: "agent without a model", code: exitFail, lines: 1, stderr: []string{"OPENAI_API_KEY"},
			args: func(t *testing.T, dir string) []string {
				return []string{"run", flowFile(t, dir, "flow.yaml", agentFlow), "--inputs", `{"question": "What is CrewAI?"}`}
			}},
		{name: "too many arguments", code: exitUsage, stderr: []string{"accepts at most 1 arg"},
			args: func(t *testing.T, _ string) []string { return []string{"run", "a.yaml", "b.yaml"} }},
		{name: "unknown flag", code: exitUsage, stderr: []string{"unknown flag: --bogus"},
			args: func(t *testing.T, _ string) []string { return []string{"run", "--bogus"} }},
		{name: "flag without value", code: exitUsage, stderr: []string{"flag needs an argument"},
			args: func(t *testing.T, _ string) []string { return []string{"run", "flow.yaml", "--inputs"} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.args(t, dir) // before entering dir: fixture paths are relative
			enter(t, dir)
			code, out, errOut := runCLI(t, args...)
			assert.Equal(t, c.code, code, errOut)
			assert.Empty(t, out)
			for _, s := range c.stderr {
				assert.Contains(t, errOut, s)
			}
			for _, s := range c.without {
				assert.NotContains(t, errOut, s)
			}
			if c.lines > 0 {
				assert.Len(t, strings.Split(strings.TrimSuffix(errOut, "\n"), "\n"), c.lines, errOut)
			}
		})
	}
}

// An input the json_schema state does not declare is dropped with a
// did-you-mean, and the run goes on.
func TestRunIgnoresUnknownInput(t *testing.T) {
	path := cliFixture(t, "valid/cli_required_input.yaml")
	inTempDir(t)
	code, out, errOut := runCLI(t, "run", path,
		"--inputs", `{"prospect_email":"a@b.com","prospect_emai":"typo@b.com"}`)
	assert.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "a@b.com\n", out)
	assert.Contains(t, errOut, "Ignoring unknown input 'prospect_emai' — not in the flow's state schema. Did you mean 'prospect_email'?")
}

// A typo alone leaves the required input missing: both are reported.
func TestRunUnknownInputAndMissingRequired(t *testing.T) {
	path := cliFixture(t, "valid/cli_required_input.yaml")
	inTempDir(t)
	code, out, errOut := runCLI(t, "run", path,
		"--inputs", `{"prospect_emai":"a@b.com"}`)
	assert.Equal(t, exitFail, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Did you mean 'prospect_email'?")
	assert.Contains(t, errOut, "Missing required input 'prospect_email'")
}
