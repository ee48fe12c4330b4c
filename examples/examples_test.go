package examples_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every example is a folder with a flow.yaml. Its README.md documents how
// to run it in ```console blocks: a line "$ command" followed by what the
// command prints (stdout and stderr, as a terminal shows them). This test
// runs those commands in the example's folder, with `troupe` built from
// ./cmd/troupe, and compares the output, so the READMEs stay true.

// wantExit lists the documented commands that are meant to fail, by
// example and a part of the command; every other command must exit 0.
var wantExit = []struct {
	example, command string
	code             int
}{
	{"research_review", `{"topic": 5}`, 1},
	{"after_sales", `It is A-1001`, 3},
}

// mainFile is the file an example folder is built around: flow.yaml, or
// agent.yaml for a declarative single agent; "" for neither.
func mainFile(dir string) string {
	for _, name := range []string{"flow.yaml", "agent.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return name
		}
	}
	return ""
}

var (
	buildOnce sync.Once
	binDir    string
	troupeBin string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// troupe builds the CLI once per test binary and returns its path.
func troupe(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "troupe-examples-")
		if buildErr != nil {
			return
		}
		troupeBin = filepath.Join(binDir, "troupe")
		cmd := exec.Command(goTool(), "build", "-o", troupeBin, "../cmd/troupe")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/troupe: %w\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return troupeBin
}

// goTool returns the go command that runs this test.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// A session is one documented command and the output it prints.
type session struct {
	line    int // in the README
	command string
	output  string
}

// sessions reads the ```console blocks of a README.
func sessions(readme string) ([]session, error) {
	var (
		out     []session
		inBlock bool
		cur     *session
	)
	sc := bufio.NewScanner(strings.NewReader(readme))
	flush := func() {
		if cur != nil {
			cur.output = strings.TrimSuffix(cur.output, "\n")
			out = append(out, *cur)
			cur = nil
		}
	}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !inBlock && strings.HasPrefix(line, "```console"):
			inBlock = true
		case inBlock && strings.HasPrefix(line, "```"):
			flush()
			inBlock = false
		case inBlock && strings.HasPrefix(line, "$ "):
			flush()
			cur = &session{line: n, command: strings.TrimPrefix(line, "$ ")}
		case inBlock && cur != nil:
			cur.output += line + "\n"
		case inBlock:
			return nil, fmt.Errorf("line %d: output before any $ command", n)
		}
	}
	if inBlock {
		return nil, errors.New("a ```console block is not closed")
	}
	return out, sc.Err()
}

// splitWords splits a command line into words, honouring single and double
// quotes (no escapes, no variables: the READMEs need no more).
func splitWords(s string) ([]string, error) {
	var (
		words []string
		word  strings.Builder
		quote rune
		have  bool
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, have = r, true
		case r == ' ' || r == '\t':
			if have {
				words = append(words, word.String())
				word.Reset()
				have = false
			}
		default:
			word.WriteRune(r)
			have = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote in %q", quote, s)
	}
	if have {
		words = append(words, word.String())
	}
	return words, nil
}

// examples returns the example folders.
func examples(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && mainFile(e.Name()) != "" {
			dirs = append(dirs, e.Name())
		}
	}
	require.NotEmpty(t, dirs)
	return dirs
}

// runIn runs a command line in dir and returns its combined output and
// exit code.
func runIn(t *testing.T, dir, line string) (string, int) {
	t.Helper()
	words, err := splitWords(line)
	require.NoError(t, err)
	require.NotEmpty(t, words)
	switch words[0] {
	case "troupe":
		words[0] = troupe(t)
	case "go":
		words[0] = goTool()
	default:
		t.Fatalf("README command %q: only troupe and go commands are run", line)
	}
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Dir = dir
	// Keep real providers out: every documented run is offline.
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "TROUPE_MODEL=", "MODEL=")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "running %q", line)
		code = ee.ExitCode()
	}
	return buf.String(), code
}

func TestExamples(t *testing.T) {
	for _, dir := range examples(t) {
		t.Run(dir, func(t *testing.T) {
			// Each replay starts from a clean slate: no runs or memory left
			// by an earlier test run in the example's .troupe folder.
			require.NoError(t, os.RemoveAll(filepath.Join(dir, ".troupe")))
			t.Cleanup(func() { os.RemoveAll(filepath.Join(dir, ".troupe")) })
			out, code := runIn(t, dir, "troupe validate "+mainFile(dir))
			require.Equal(t, 0, code, "troupe validate:\n%s", out)

			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if errors.Is(err, os.ErrNotExist) {
				// No documented session: the flow must still run offline.
				line := "troupe run flow.yaml"
				if _, err := os.Stat(filepath.Join(dir, "replies.yaml")); err == nil {
					line += " --llm-script replies.yaml"
				}
				out, code := runIn(t, dir, line)
				require.Equal(t, 0, code, "%s:\n%s", line, out)
				assert.NotEmpty(t, strings.TrimSpace(out), "%s printed nothing", line)
				return
			}
			require.NoError(t, err)
			list, err := sessions(string(readme))
			require.NoError(t, err, "README.md")
			require.NotEmpty(t, list, "README.md documents no ```console session")
			for _, s := range list {
				want := 0
				for _, w := range wantExit {
					if w.example == dir && strings.Contains(s.command, w.command) {
						want = w.code
					}
				}
				out, code := runIn(t, dir, s.command)
				assert.Equal(t, s.output, strings.TrimSuffix(out, "\n"), "README.md:%d: $ %s", s.line, s.command)
				assert.Equal(t, want, code, "README.md:%d: $ %s: exit code\n%s", s.line, s.command, out)
			}
		})
	}
}

func TestSplitWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`troupe run flow.yaml`, []string{"troupe", "run", "flow.yaml"}},
		{`troupe run --inputs '{"topic": "a b"}'`, []string{"troupe", "run", "--inputs", `{"topic": "a b"}`}},
		{`go run  .`, []string{"go", "run", "."}},
		{`echo ''`, []string{"echo", ""}},
	}
	for _, c := range cases {
		got, err := splitWords(c.in)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, c.in)
	}
	_, err := splitWords(`troupe run --inputs '{`)
	assert.Error(t, err)
}
