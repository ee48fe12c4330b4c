package skill_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/skill"
)

// The loader's spec is CrewAI's, with an enum of the labels.
func TestLoaderSpec(t *testing.T) {
	dir := t.TempDir()
	library(t, dir)
	spec := &action.AgentSpec{Role: "R"}
	skill.Attach(spec, resolve(t, dir, "lib"), skill.Options{})
	assert.Equal(t, []string{"load_skill", "read_skill_file"}, toolNames(spec), "scripts stay off without the opt-in")
	s := tool(t, spec, "load_skill").Spec()
	assert.Equal(t, "Load one available skill's full instructions. Most requests need no skill, so only call this when an available skill's description clearly matches the current request.", s.Description)
	assert.Equal(t, map[string]any{"type": "object", "required": []any{"skill_name"}, "properties": map[string]any{
		"skill_name": map[string]any{"type": "string", "description": "Exact name of the available skill whose instructions are needed.",
			"enum": []string{"csv-insights", "pdf-tools"}}}}, s.Parameters)
}

// A label outside the catalog gets CrewAI's "not available" result, the
// argument quoted as Python's repr quotes it.
func TestLoaderUnknownSkill(t *testing.T) {
	dir := t.TempDir()
	library(t, dir)
	spec := &action.AgentSpec{Role: "R"}
	skill.Attach(spec, resolve(t, dir, "lib"), skill.Options{})
	load := tool(t, spec, "load_skill")
	tests := []struct{ args, want string }{
		{`{"skill_name": "nope"}`, "Skill 'nope' is not available. Available skills: csv-insights, pdf-tools."},
		{`{"skill_name": "it's"}`, `Skill "it's" is not available. Available skills: csv-insights, pdf-tools.`},
	}
	for _, tt := range tests {
		out, err := load.Call(t.Context(), json.RawMessage(tt.args))
		require.NoError(t, err)
		assert.Equal(t, tt.want, out)
	}
	_, err := load.Call(t.Context(), json.RawMessage(`{"skill_name": 3}`))
	var ae *action.ArgumentError
	require.ErrorAs(t, err, &ae)
	_, err = load.Call(t.Context(), json.RawMessage(`{}`))
	require.ErrorAs(t, err, &ae)
}

// runWith runs an agent with the skills of items on a scripted model and
// returns its events and the model.
func runWith(t *testing.T, dir string, opts skill.Options, tools []action.Tool, replies []fake.Reply, items ...string) (*events, *fake.Model, *action.AgentOutput) {
	t.Helper()
	model := fake.New(replies...)
	spec := &action.AgentSpec{Role: "Analyst", Model: model, Tools: tools}
	skill.Attach(spec, resolve(t, dir, items...), opts)
	rec := &events{}
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "Read the form.", Name: "t"}, &action.RunOptions{Observer: rec.observe})
	require.NoError(t, err)
	return rec, model, out
}

// Loading a skill is reported as skill_activated and skill_used under the
// loader's call; reading a file works only once the skill is loaded.
func TestLoadThenReadReference(t *testing.T) {
	dir := t.TempDir()
	library(t, dir)
	read := fake.Call("read_skill_file", map[string]any{"skill_name": "pdf-tools", "path": "references/forms.md"})
	rec, model, out := runWith(t, dir, skill.Options{}, nil, inOrder(
		fake.ToolCalls(read),
		fake.ToolCalls(fake.Call("load_skill", map[string]any{"skill_name": "pdf-tools"})),
		fake.ToolCalls(read),
		fake.Match(`Field A is the name`, fake.Text("Field A holds the name.")),
	), "lib")
	assert.Equal(t, "Field A holds the name.", out.Raw)
	require.Len(t, out.ToolFailures, 1)
	assert.Contains(t, out.ToolFailures[0].Message, "skill 'pdf-tools': the skill is not loaded; call `load_skill` with its name first")
	assert.Len(t, model.Requests(), 4)

	pdf := filepath.Join(dir, "lib", "pdf-tools")
	var got []skillEvent
	for _, e := range rec.skillEvents() {
		if e.kind == action.EventSkillActivated || e.kind == action.EventSkillUsed {
			got = append(got, e)
		}
	}
	assert.Equal(t, []skillEvent{
		{action.EventSkillActivated, action.SkillInfo{Name: "pdf-tools", Path: pdf, Level: 2}},
		{action.EventSkillUsed, action.SkillInfo{Name: "pdf-tools", Path: pdf, Level: 3}},
	}, got)
	calls := rec.of(action.EventToolStarted)
	for _, ev := range rec.of(action.EventSkillActivated) {
		assert.Equal(t, calls[1].ID, ev.Parent, "under the load_skill call")
		assert.Equal(t, "Analyst", ev.Agent)
		assert.Equal(t, "t", ev.Task)
	}
}

// Always-on skills are reported as used at every run.
func TestAlwaysOnSkillUsedEachRun(t *testing.T) {
	set := resolve(t, t.TempDir(), "---\nname: tone\ndescription: Be kind.\n---\nThank the user.\n")
	spec := &action.AgentSpec{Role: "R"}
	skill.Attach(spec, set, skill.Options{})
	assert.Empty(t, spec.Tools, "no catalog, no loader")
	rec := &events{}
	startRun(t, spec, rec)
	startRun(t, spec, rec)
	used := rec.of(action.EventSkillUsed)
	require.Len(t, used, 2)
	assert.Equal(t, &action.SkillInfo{Name: "tone", Path: ".", Level: 2}, used[0].Skill)
}

// read_skill_file stays inside the skill's folder and reads text only.
func TestReadFileConfinement(t *testing.T) {
	root := t.TempDir()
	lib := library(t, root)
	pdf := filepath.Join(lib, "pdf-tools")
	require.NoError(t, os.WriteFile(filepath.Join(root, "secret.txt"), []byte("secret"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(root, "secret.txt"), filepath.Join(pdf, "references", "escape.md")))
	require.NoError(t, os.Symlink(filepath.Join(pdf, "references", "forms.md"), filepath.Join(pdf, "assets", "inside.md")))
	require.NoError(t, os.WriteFile(filepath.Join(pdf, "assets", "image.png"), []byte("\x89PNG\x00\x01"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pdf, "assets", "latin1.txt"), []byte("caf\xe9"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pdf, "assets", "big.txt"), []byte(strings.Repeat("b", 200)), 0o644))
	sk := &skill.Skill{Name: "pdf-tools", Dir: pdf}

	tests := []struct {
		name, path string
		want       string
		err        error
		msg        string
	}{
		{"file", "references/forms.md", "# Forms\n\nField A is the name.\n", nil, ""},
		{"symlink inside", "assets/inside.md", "# Forms\n\nField A is the name.\n", nil, ""},
		{"dot dot", "../csv-insights/SKILL.md", "", skill.ErrParentPath, "must not contain '..'"},
		{"dot dot inside", "references/../SKILL.md", "", skill.ErrParentPath, ""},
		{"absolute", filepath.Join(pdf, "SKILL.md"), "", skill.ErrAbsolutePath, "must be relative"},
		{"symlink out", "references/escape.md", "", skill.ErrOutside, "leads outside the skill's folder"},
		{"binary", "assets/image.png", "", skill.ErrNotText, "not a text file"},
		{"not utf-8", "assets/latin1.txt", "", skill.ErrNotText, ""},
		{"size cap", "assets/big.txt", "", skill.ErrTooLarge, "assets/big.txt is 200 bytes"},
		{"missing", "references/none.md", "", nil, "there is no file references/none.md"},
		{"folder", "references", "references/forms.md\nreferences/more/deep.md", nil, ""},
		{"whole skill", "", "SKILL.md\nassets/big.txt\nassets/image.png\nassets/latin1.txt\nassets/logo.txt\nreferences/forms.md\nreferences/more/deep.md\nscripts/extract.sh", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := skill.ReadFile(sk, tt.path, 100)
			if tt.err != nil || tt.msg != "" {
				require.Error(t, err)
				if tt.err != nil {
					assert.ErrorIs(t, err, tt.err)
				}
				assert.Contains(t, err.Error(), tt.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Scripts run only when the host allows them, directly, in the skill's
// folder, with a minimal environment, a timeout and capped output.
func TestScripts(t *testing.T) {
	root := t.TempDir()
	lib := library(t, root)
	pdf := filepath.Join(lib, "pdf-tools")
	write := func(name, text string, mode os.FileMode) {
		require.NoError(t, os.WriteFile(filepath.Join(pdf, "scripts", name), []byte(text), mode))
	}
	write("where.sh", "#!/bin/sh\npwd\nenv | sort\n", 0o755)
	write("fail.sh", "#!/bin/sh\necho oops >&2\nexit 3\n", 0o755)
	write("slow.sh", "#!/bin/sh\nsleep 30\n", 0o755)
	write("loud.sh", "#!/bin/sh\ni=0; while [ $i -lt 100 ]; do echo 0123456789; i=$((i+1)); done\n", 0o755)
	write("plain.sh", "#!/bin/sh\necho hi\n", 0o644)
	require.NoError(t, os.WriteFile(filepath.Join(root, "evil.sh"), []byte("#!/bin/sh\necho evil\n"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "evil.sh"), filepath.Join(pdf, "scripts", "evil.sh")))
	t.Setenv("TROUPE_SECRET", "s3cret")
	sk := &skill.Skill{Name: "pdf-tools", Dir: pdf}
	opts := skill.Options{ScriptTimeout: 2 * time.Second, MaxOutputBytes: 64}

	out, err := skill.RunScript(t.Context(), sk, "scripts/extract.sh", []string{"a b", "c"}, opts)
	require.NoError(t, err)
	assert.Equal(t, "exit code: 0\nstdout:\nextracted a b c\nstderr:\n", out)

	out, err = skill.RunScript(t.Context(), sk, "where.sh", nil, skill.Options{})
	require.NoError(t, err)
	real, _ := filepath.EvalSymlinks(pdf)
	assert.Contains(t, out, "stdout:\n"+real+"\n")
	assert.NotContains(t, out, "TROUPE_SECRET")
	assert.Contains(t, out, "PATH=")

	_, err = skill.RunScript(t.Context(), sk, "fail.sh", nil, opts)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exit code: 3\nstdout:\n\nstderr:\noops")

	_, err = skill.RunScript(t.Context(), sk, "slow.sh", nil, skill.Options{ScriptTimeout: 100 * time.Millisecond})
	assert.ErrorContains(t, err, "did not finish within 100ms")

	out, err = skill.RunScript(t.Context(), sk, "loud.sh", nil, opts)
	require.NoError(t, err)
	assert.Contains(t, out, "[... 1036 more bytes not shown]")

	_, err = skill.RunScript(t.Context(), sk, "plain.sh", nil, opts)
	assert.ErrorIs(t, err, skill.ErrNotExecutable)
	_, err = skill.RunScript(t.Context(), sk, "evil.sh", nil, opts)
	assert.ErrorIs(t, err, skill.ErrOutside)
	_, err = skill.RunScript(t.Context(), sk, "../SKILL.md", nil, opts)
	assert.ErrorIs(t, err, skill.ErrParentPath)
	_, err = skill.RunScript(t.Context(), sk, "/bin/sh", nil, opts)
	assert.ErrorIs(t, err, skill.ErrAbsolutePath)
}

// run_skill_script is a tool only with the opt-in, and only for a loaded
// skill.
func TestScriptToolOptIn(t *testing.T) {
	dir := t.TempDir()
	library(t, dir)
	spec := &action.AgentSpec{Role: "R"}
	skill.Attach(spec, resolve(t, dir, "lib"), skill.Options{})
	assert.NotContains(t, toolNames(spec), "run_skill_script")

	_, _, out := runWith(t, dir, skill.Options{Scripts: true}, nil, inOrder(
		fake.ToolCalls(fake.Call("load_skill", map[string]any{"skill_name": "pdf-tools"})),
		fake.ToolCalls(fake.Call("run_skill_script", map[string]any{"skill_name": "pdf-tools", "script": "extract.sh", "args": []string{"x"}})),
		fake.Match(`extracted x`, fake.Text("done")),
	), "lib")
	assert.Equal(t, "done", out.Raw)
}

// inOrder makes replies answer one request each, in order.
func inOrder(replies ...fake.Reply) []fake.Reply {
	for i, r := range replies {
		replies[i] = fake.Times(1, r)
	}
	return replies
}

// fixedTool is a tool that answers its name.
func fixedTool(name string) action.Tool {
	return &action.ToolFunc{ToolSpec: llm.ToolSpec{Name: name, Parameters: map[string]any{"type": "object"}},
		Fn: func(context.Context, json.RawMessage) (any, error) { return name + " ran", nil }}
}

// While a loaded skill declares allowed-tools, other tools are refused,
// by name or sanitized name; the skill tools never are.
func TestAllowedToolsEnforced(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "lib/strict", "SKILL.md", "---\nname: strict\ndescription: Only weather.\nallowed-tools: get_weather Bash(git:*)\n---\nUse weather only.\n")
	writeSkill(t, dir, "lib/strict/references", "a.md", "A")
	tools := []action.Tool{fixedTool("getWeather"), fixedTool("search"), fixedTool("Bash")}

	rec, _, out := runWith(t, dir, skill.Options{}, tools, inOrder(
		fake.ToolCalls(fake.Call("search", map[string]any{})), // nothing loaded yet: allowed
		fake.ToolCalls(fake.Call("load_skill", map[string]any{"skill_name": "strict"})),
		fake.ToolCalls(fake.Call("getWeather", map[string]any{})), // allowed as get_weather
		fake.ToolCalls(fake.Call("search", map[string]any{}), fake.Call("read_skill_file", map[string]any{"skill_name": "strict", "path": "references/a.md"})),
		fake.ToolCalls(fake.Call("Bash", map[string]any{})), // a pattern allows no tool
		fake.Text("done"),
	), "lib")
	assert.Equal(t, "done", out.Raw)
	var refused []string
	for _, f := range out.ToolFailures {
		assert.Equal(t, action.FailureRefused, f.Reason)
		refused = append(refused, f.Message)
	}
	assert.Equal(t, []string{
		"Error: tool search is not allowed while skill strict is active; allowed: get_weather, Bash(git:*)",
		"Error: tool Bash is not allowed while skill strict is active; allowed: get_weather, Bash(git:*)",
	}, refused)
	errs := rec.of(action.EventToolError)
	require.Len(t, errs, 2)
	var re *action.ToolRefusedError
	require.True(t, errors.As(errs[0].Err, &re))
	assert.Equal(t, "search", re.Tool)
}

// An always-on skill restricts tools from the start; the engine can turn
// enforcement off.
func TestAllowedToolsAlwaysOnAndOff(t *testing.T) {
	inline := "---\nname: careful\ndescription: Careful.\nallowed-tools: read\n---\nBe careful.\n"
	for _, off := range []bool{false, true} {
		_, _, out := runWith(t, t.TempDir(), skill.Options{NoToolLimits: off}, []action.Tool{fixedTool("write")}, inOrder(
			fake.ToolCalls(fake.Call("write", map[string]any{})),
			fake.Text("done"),
		), inline)
		if off {
			assert.Empty(t, out.ToolFailures)
		} else {
			require.Len(t, out.ToolFailures, 1)
			assert.Equal(t, "Error: tool write is not allowed while skill careful is active; allowed: read", out.ToolFailures[0].Message)
		}
	}
}

func TestSanitizeToolName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"getWeather", "get_weather"},
		{"HTTPServerStatus", "http_server_status"},
		{"Load Skill", "load_skill"},
		{"it's-a \"tool\"", "its_a_tool"},
		{"café", "cafe"},
		{"__x__", "x"},
		{strings.Repeat("a", 70), strings.Repeat("a", 55) + "_" + "4fc4b2b1"},
	}
	for _, tt := range tests {
		got := skill.SanitizeToolName(tt.in)
		if len(tt.in) > 64 {
			assert.Len(t, got, 64)
			assert.Equal(t, tt.want[:56], got[:56])
			continue
		}
		assert.Equal(t, tt.want, got, tt.in)
	}
}
