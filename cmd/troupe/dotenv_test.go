package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unsetenv removes k from the environment for the test.
func unsetenv(t *testing.T, k string) {
	t.Helper()
	t.Setenv(k, "") // restores the old value after the test
	require.NoError(t, os.Unsetenv(k))
}

// troupe run reads ./.env, as CrewAI's CLI does, but a variable the
// environment sets, even to "" or "0", keeps its value.
func TestDotEnvNeverOverridesTheEnvironment(t *testing.T) {
	const key = "TROUPE_TEST_TOPIC"
	cases := []struct {
		name string
		env  *string // nil: not set
		want string
	}{
		{name: "unset: .env sets it", env: nil, want: "from dotenv"},
		{name: "set empty: kept", env: ptr(""), want: ""},
		{name: "set to 0: kept", env: ptr("0"), want: "0"},
		{name: "set: kept", env: ptr("from the shell"), want: "from the shell"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			if c.env == nil {
				unsetenv(t, key)
			} else {
				t.Setenv(key, *c.env)
			}
			flowFile(t, dir, ".env", "# comment\nexport "+key+"='from dotenv'\n")
			path := flowFile(t, dir, "flow.yaml", "schema: crewai.flow/v1\nname: Env\nmethods:\n  begin: {start: true, do: {call: expression, expr: state.topic}}\n")
			code, out, errOut := runCLI(t, "run", path, "--inputs", `{"topic":"AI"}`)
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, "AI\n", out)
			got, ok := os.LookupEnv(key)
			assert.True(t, ok)
			assert.Equal(t, c.want, got)
		})
	}
}

func ptr(s string) *string { return &s }

const scriptFlow = `schema: crewai.flow/v1
name: Script
methods:
  s: {start: true, do: {call: script, code: "return 'script ran'"}}
`

// Only the real environment or --allow-scripts enables script actions:
// CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1 in ./.env does not, and does not
// override an explicit 0 in the environment.
func TestDotEnvNeverEnablesScripts(t *testing.T) {
	cases := []struct {
		name   string
		env    *string // CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION; nil: not set
		dotenv string
		flags  []string
		runs   bool
	}{
		{name: ".env alone", dotenv: "CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1\n"},
		{name: ".env against an explicit 0", env: ptr("0"), dotenv: "CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1\n"},
		{name: ".env against an empty value", env: ptr(""), dotenv: "CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=true\n"},
		{name: "the environment", env: ptr("1"), runs: true},
		{name: "the environment, .env says 0", env: ptr("1"), dotenv: "CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=0\n", runs: true},
		{name: "--allow-scripts", flags: []string{"--allow-scripts"}, runs: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			if c.env == nil {
				unsetenv(t, scriptsVariable)
			} else {
				t.Setenv(scriptsVariable, *c.env)
			}
			if c.dotenv != "" {
				flowFile(t, dir, ".env", c.dotenv)
			}
			path := flowFile(t, dir, "flow.yaml", scriptFlow)
			code, out, errOut := runCLI(t, append([]string{"run", path}, c.flags...)...)
			if !c.runs {
				assert.Equal(t, exitFail, code)
				assert.Empty(t, out)
				assert.Contains(t, errOut, "Flow script execution is disabled by default")
				assert.Contains(t, errOut, "ignoring CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION", "says why .env did not count")
				return
			}
			if _, err := exec.LookPath("python3"); err != nil {
				t.Skip("python3 is not installed: script actions cannot run")
			}
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, "script ran\n", out)
		})
	}
}
