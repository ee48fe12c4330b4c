package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/mcp/client"
)

// pidOf reads the pid a stdio test server wrote.
func pidOf(t *testing.T, pidfile string) int {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(b))
	require.NoError(t, err)
	return pid
}

// gone reports whether no process has the pid (a zombie still counts).
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func TestStdioServerGetsAMinimalEnvironment(t *testing.T) {
	t.Setenv("TROUPE_TEST_SECRET", "must not leak")
	dir := t.TempDir()
	srv := stdioServer(t, filepath.Join(t.TempDir(), "pid"))
	srv.Env["EXTRA"] = "given"
	srv.Dir = dir
	lg := &logs{}
	c := client.New(quick(client.Options{Logger: lg.logger()}))
	defer c.Close()
	env := toolNamed(t, open(t, c, srv), mcp.ToolName(srv.ToolPrefix(), "environment"))
	got, err := call(t, env, `{}`)
	require.NoError(t, err)
	lines := strings.Split(got.(string), "\n")
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, "cwd="+real, lines[0])
	allowed := []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "PWD", "EXTRA", "TROUPE_MCP_TEST_SERVER", "TROUPE_MCP_PIDFILE"}
	var names []string
	for _, kv := range lines[1:] {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
		assert.Contains(t, allowed, name, "only the inherited variables and env reach the server")
	}
	assert.Contains(t, lines, "EXTRA=given")
	if _, ok := os.LookupEnv("PATH"); ok {
		assert.Contains(t, names, "PATH")
	}
	assert.NotContains(t, names, "TROUPE_TEST_SECRET")
	assert.Contains(t, lg.text(), "INFO mcp server stderr: test server ready", "the server's stderr goes to the logger")
}

func TestStdioServerStopsWhenReleased(t *testing.T) {
	for _, stubborn := range []bool{false, true} {
		t.Run(fmt.Sprintf("stubborn=%v", stubborn), func(t *testing.T) {
			base := runtime.NumGoroutine()
			pidfile := filepath.Join(t.TempDir(), "pid")
			srv := stdioServer(t, pidfile)
			if stubborn {
				// Ignores its stdin closing and SIGTERM: only SIGKILL stops it.
				srv.Env["TROUPE_MCP_STUBBORN"] = "1"
			}
			c := client.New(quick(client.Options{}))
			tools, release, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{srv}})
			require.NoError(t, err)
			_, err = call(t, toolNamed(t, tools, mcp.ToolName(srv.ToolPrefix(), "echo")), `{"text": "x"}`)
			require.NoError(t, err)
			pid := pidOf(t, pidfile)
			assert.False(t, gone(pid), "running while the execution lasts")
			release()
			assert.True(t, gone(pid), "stopped and reaped when the execution ends")
			require.NoError(t, c.Close())
			noGoroutinesLeft(t, base)
		})
	}
}

// noGoroutinesLeft waits for the goroutines to fall back to base. It polls
// itself: testify's Eventually runs its condition in a goroutine.
func noGoroutinesLeft(t *testing.T, base int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

func TestFailedStdioServerQuotesItsStderr(t *testing.T) {
	c := client.New(quick(client.Options{Attempts: 1}))
	defer c.Close()
	srv := mcp.Server{Command: "sh", Args: []string{"-c", "echo 'cannot open the database' >&2; exit 3"}, Required: true}
	_, release, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{srv}})
	defer release()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(stderr: cannot open the database)")

	srv = mcp.Server{Command: "no-such-command-troupe", Required: true}
	_, release, err = c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{srv}})
	defer release()
	require.ErrorContains(t, err, "executable file not found")
}

func TestCancelledRunLeavesNoProcessOrGoroutine(t *testing.T) {
	base := runtime.NumGoroutine()
	pidfile := filepath.Join(t.TempDir(), "pid")
	srv := stdioServer(t, pidfile)
	c := client.New(quick(client.Options{}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	m := fake.New(fake.ToolCalls(fake.Call(mcp.ToolName(srv.ToolPrefix(), "slow_write"), `{}`)))
	spec := &action.AgentSpec{Role: "Tester", Model: m, Toolsets: []action.Toolset{mcp.Toolset(c, []mcp.Server{srv})}}
	obs := func(ev action.Event) {
		if ev.Kind == action.EventMCPToolExecutionStarted {
			cancel() // the run is cancelled while the call is under way
		}
	}
	_, err := action.RunAgent(ctx, spec, action.AgentTask{Input: "go"}, &action.RunOptions{Observer: obs})
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, gone(pidOf(t, pidfile)), "the server is stopped before RunAgent returns")
	require.NoError(t, c.Close())
	noGoroutinesLeft(t, base)
}

func TestServerThatWentAwayIsReconnected(t *testing.T) {
	n := &counts{}
	s := newTestServer(n)
	c := client.New(quick(client.Options{Transport: memory(s)}))
	defer c.Close()
	ev := &events{}
	m := fake.New(
		fake.Times(1, fake.Match("Task: go", fake.ToolCalls(fake.Call("s_echo", `{"text": "one"}`)))),
		fake.Times(1, fake.Match("one", fake.ToolCalls(fake.Call("s_echo", `{"text": "two"}`)))),
		fake.Match("two", fake.Text("done")),
	)
	srv := mcp.Server{Command: "s", RetryCalls: true}
	spec := &action.AgentSpec{Role: "Tester", Model: m, Toolsets: []action.Toolset{mcp.Toolset(c, []mcp.Server{srv})}}
	intercept := func(ctx context.Context, call action.Call, next func(context.Context) (any, error)) (any, error) {
		if call.Kind == action.CallTool && strings.Contains(string(call.ToolCall.Arguments), "two") {
			for ss := range s.Sessions() {
				require.NoError(t, ss.Close()) // the server goes away between the calls
			}
		}
		return next(ctx)
	}
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, &action.RunOptions{Observer: ev.observe, Intercept: intercept})
	require.NoError(t, err)
	assert.Equal(t, "done", out.Raw)
	assert.Empty(t, out.ToolFailures)
	assert.Equal(t, int64(2), n.sessions.Load())
	var reconnects []bool
	for _, e := range ev.of(action.EventMCPConnectionStarted) {
		reconnects = append(reconnects, e.Detail.(mcp.EventDetail).IsReconnect)
	}
	assert.Equal(t, []bool{false, true}, reconnects)
	assert.True(t, slices.Contains(ev.kinds(), action.EventMCPToolExecutionCompleted))
}
