package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/internal/confine"
	"github.com/troupe-dev/troupe/internal/pyjson"
	"github.com/troupe-dev/troupe/llm"
)

// ErrNotExecutable is matched by the error of a script without an execute
// permission.
var ErrNotExecutable = errors.New("the script is not executable")

// scriptEnv are the variables a script gets from Troupe's environment;
// nothing else is passed.
var scriptEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TZ"}

// scriptTool is run_skill_script: it runs a file under a loaded skill's
// scripts/ folder.
type scriptTool struct{ a *agentSkills }

var _ action.ArgumentChecker = (*scriptTool)(nil)

// Spec implements action.Tool.
func (t *scriptTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: t.a.runner,
		Description: "Run a script of a skill you loaded with `" + t.a.loader + "`: a file under its scripts/ folder, run directly (no shell) in the skill's folder. " +
			"Returns its exit code, standard output and standard error.",
		Parameters: objectSchema([]string{"skill_name", "script"},
			"skill_name", map[string]any{"type": "string", "description": "Name of the loaded skill.", "enum": t.a.runnable},
			"script", map[string]any{"type": "string", "description": "Path of the script relative to the skill's scripts/ folder, e.g. extract.py."},
			"args", map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Command line arguments."},
		)}
}

// ChecksArguments implements action.ArgumentChecker.
func (t *scriptTool) ChecksArguments() {}

// Call implements action.Tool.
func (t *scriptTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := decodeArgs(t.a.runner, raw, "skill_name", "script")
	if err != nil {
		return nil, err
	}
	var argv []string
	if v, ok := args["args"]; ok && string(v) != "null" {
		if json.Unmarshal(v, &argv) != nil {
			return nil, &action.ArgumentError{Tool: t.a.runner, Err: errors.New("args: Input should be a list of strings")}
		}
	}
	sk, label, err := t.a.loadedSkill(ctx, args.str("skill_name"), t.a.runnable)
	if err != nil {
		return nil, err
	}
	out, err := RunScript(ctx, sk, args.str("script"), argv, t.a.opts)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", pyjson.QuoteRepr(label), err)
	}
	return out, nil
}

// RunScript runs the file at rel, relative to the skill's scripts/ folder
// (a leading "scripts/" is accepted too), with args: directly, without a
// shell, so it needs an execute permission (and a #! line for a script);
// in the skill's folder; with only PATH, HOME, USER, LOGNAME, LANG, LC_ALL,
// TMPDIR and TZ from Troupe's environment; with no standard input; for at
// most opts.ScriptTimeout; keeping at most opts.MaxOutputBytes of its
// standard output and of its standard error. A run that exits with a
// code other than 0 returns its output and an error.
func RunScript(ctx context.Context, s *Skill, rel string, args []string, opts Options) (string, error) {
	if s.Dir == "" {
		return "", errors.New("an inline skill has no scripts")
	}
	if opts.ScriptTimeout <= 0 {
		opts.ScriptTimeout = DefaultScriptTimeout
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	clean, err := relativePath(strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(rel)), "scripts/"))
	if err != nil {
		return "", err
	}
	dirs, err := confine.New(filepath.Join(s.Dir, "scripts"))
	if err != nil {
		return "", err
	}
	path, err := dirs.Resolve(clean)
	if err != nil {
		return "", fmt.Errorf("the script %s leads outside the skill's scripts/ folder (%w)", rel, ErrOutside)
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("there is no script %s in the skill's scripts/ folder", rel)
	}
	if st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s: %w (it needs an execute permission and a #! line)", rel, ErrNotExecutable)
	}
	work, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		work = s.Dir
	}
	ctx, cancel := context.WithTimeout(ctx, opts.ScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = work
	cmd.Env = minimalEnv()
	stdout, stderr := &capped{max: opts.MaxOutputBytes}, &capped{max: opts.MaxOutputBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	killGroup(cmd)
	err = cmd.Run()
	report := func(code int) string {
		return fmt.Sprintf("exit code: %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("the script %s did not finish within %s\n%s", rel, opts.ScriptTimeout, report(-1))
	case errors.As(err, &exit):
		return "", fmt.Errorf("the script %s failed\n%s", rel, report(exit.ExitCode()))
	case err != nil:
		return "", fmt.Errorf("cannot run the script %s: %w", rel, err)
	}
	return report(0), nil
}

// minimalEnv is the environment scripts run with.
func minimalEnv() []string {
	var env []string
	for _, k := range scriptEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	max  int
	buf  []byte
	lost int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
		c.lost += max(0, len(p)-room)
	} else {
		c.lost += len(p)
	}
	return len(p), nil
}

// String is what was kept, with a note of what was cut.
func (c *capped) String() string {
	s := strings.TrimRight(string(c.buf), "\n")
	if c.lost > 0 {
		s += fmt.Sprintf("\n[... %d more bytes not shown]", c.lost)
	}
	return s
}
