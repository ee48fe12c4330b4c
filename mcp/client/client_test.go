package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/mcp/client"
)

// open returns the tools of servers through c, released at the test's end.
func open(t *testing.T, c *client.Connector, servers ...mcp.Server) []action.Tool {
	t.Helper()
	tools, release, err := c.Tools(t.Context(), mcp.Request{Servers: servers, Agent: "Tester"})
	t.Cleanup(release)
	require.NoError(t, err)
	return tools
}

func call(t *testing.T, tool action.Tool, args string) (any, error) {
	t.Helper()
	return tool.Call(t.Context(), json.RawMessage(args))
}

func TestEveryTransportListsAndCalls(t *testing.T) {
	cases := map[string]func(t *testing.T) (client.Options, mcp.Server){
		"in-memory": func(t *testing.T) (client.Options, mcp.Server) {
			return client.Options{Transport: memory(newTestServer(&counts{}))}, mcp.Server{Command: "test-server"}
		},
		"streamable HTTP": func(t *testing.T) (client.Options, mcp.Server) {
			return client.Options{}, mcp.Server{URL: httpServer(t, newTestServer(&counts{}), false).URL + "/mcp"}
		},
		"SSE": func(t *testing.T) (client.Options, mcp.Server) {
			return client.Options{}, mcp.Server{Transport: mcp.TransportSSE, URL: httpServer(t, newTestServer(&counts{}), true).URL + "/sse"}
		},
		"stdio": func(t *testing.T) (client.Options, mcp.Server) {
			s := stdioServer(t, filepath.Join(t.TempDir(), "pid"))
			s.Prefix = new(string)
			return client.Options{}, s
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			opts, srv := setup(t)
			c := client.New(quick(opts))
			defer c.Close()
			tools := open(t, c, srv)
			require.Len(t, tools, 8, "every page of tools/list")
			prefix := srv.ToolPrefix()
			echo := toolNamed(t, tools, mcp.ToolName(prefix, "echo"))
			assert.Equal(t, mcp.ToolName(prefix, "echo"), echo.Spec().Name)
			assert.Equal(t, "Echoes the text", echo.Spec().Description)
			assert.Equal(t, "object", echo.Spec().Parameters["type"])
			assert.Equal(t, "echo", echo.(*client.Tool).Original())
			got, err := call(t, echo, `{"text": "hello"}`)
			require.NoError(t, err)
			assert.Equal(t, "hello", got)
			add := toolNamed(t, tools, mcp.ToolName(prefix, "addNumbers"))
			got, err = call(t, add, `{"a": 2, "b": 3}`)
			require.NoError(t, err)
			assert.Equal(t, `{"sum":5}`, got, "the JSON text item the SDK adds for structured output")
		})
	}
}

func TestToolsAreNamedAndFiltered(t *testing.T) {
	c := client.New(quick(client.Options{Transport: memory(newTestServer(&counts{}))}))
	defer c.Close()
	a := mcp.Server{Command: "srv", Args: []string{"one"}, Filter: &mcp.Filter{Allowed: []string{"echo", "add_numbers"}}}
	b := mcp.Server{Command: "srv", Args: []string{"one"}, Filter: &mcp.Filter{Blocked: []string{"fail", "mixed", "structured", "slow_write", "slow_read", "environment"}}}
	tools, release, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{a, b}, Taken: []string{"srv_one_echo"}})
	defer release()
	require.NoError(t, err)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Spec().Name)
	}
	assert.Equal(t, []string{"srv_one_add_numbers", "srv_one_echo_2", "srv_one_add_numbers_2", "srv_one_echo_3"}, names)
	for _, tool := range tools {
		args := `{"a": 1, "b": 1}`
		if tool.(*client.Tool).Original() == "echo" {
			args = `{"text": "x"}`
		}
		got, err := call(t, tool, args)
		require.NoError(t, err, "duplicates call the server under the original name")
		assert.NotEmpty(t, got)
	}

	desc := mcp.Server{Command: "srv", Args: []string{"two"}, Tool: "fail"}
	got := open(t, c, desc)
	require.Len(t, got, 1)
	assert.Equal(t, "Tool fail from srv two", got[0].Spec().Description, "a tool without a description")
}

func TestArgumentsAreCheckedBeforeTheCall(t *testing.T) {
	n := &counts{}
	c := client.New(quick(client.Options{Transport: memory(newTestServer(n))}))
	defer c.Close()
	add := toolNamed(t, open(t, c, mcp.Server{Command: "s"}), "s_add_numbers")
	_, err := call(t, add, `{"a": "two", "b": 3}`)
	var ae *action.ArgumentError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "s_add_numbers", ae.Tool)
	_, err = call(t, add, `[1, 2]`)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, int64(0), n.called("addNumbers"), "no call made")

	echo := toolNamed(t, open(t, c, mcp.Server{Command: "s"}), "s_echo")
	got, err := call(t, echo, `{"text": "kept", "unused": null}`)
	require.NoError(t, err, "null arguments are dropped, as CrewAI does")
	assert.Equal(t, "kept", got)
}

func TestResults(t *testing.T) {
	c := client.New(quick(client.Options{Transport: memory(newTestServer(&counts{}))}))
	defer c.Close()
	tools := open(t, c, mcp.Server{Command: "s"})

	got, err := call(t, toolNamed(t, tools, "s_mixed"), `{}`)
	require.NoError(t, err)
	assert.Equal(t, "first\n[image: image/png, 7 bytes]\n[resource: file:///a.txt]\n[resource: file:///b.txt]\nbee\n[audio: audio/wav, 3 bytes]\n[resource: file:///c.bin, application/octet-stream, 2 bytes]\nlast", got)

	got, err = call(t, toolNamed(t, tools, "s_structured"), `{}`)
	require.NoError(t, err)
	assert.Equal(t, `{"ok":true}`, got, "structured content as JSON when there is no text")

	_, err = call(t, toolNamed(t, tools, "s_fail"), `{"text": "a.txt"}`)
	var te *client.ToolError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "no such file: a.txt", te.Observation())
	assert.Equal(t, action.FailureMCPError, te.Reason())
	assert.Equal(t, "fail", te.Tool)
	assert.Equal(t, "s", te.Server)
	var rf action.ReportedFailure
	assert.ErrorAs(t, err, &rf)
}

func TestProtocolErrorsNameTheServerAndTool(t *testing.T) {
	s := newTestServer(&counts{})
	c := client.New(quick(client.Options{Transport: memory(s)}))
	defer c.Close()
	echo := toolNamed(t, open(t, c, mcp.Server{Command: "s"}), "s_echo")
	s.RemoveTools("echo")
	_, err := call(t, echo, `{"text": "x"}`)
	var ce *client.CallError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), `mcp: server s: Error executing MCP tool echo: calling "tools/call": unknown tool "echo"`)
}

func TestCallTimeoutLeavesTheSessionUsable(t *testing.T) {
	n := &counts{}
	c := client.New(quick(client.Options{Transport: memory(newTestServer(n))}))
	defer c.Close()
	tools := open(t, c, mcp.Server{Command: "s", CallTimeout: 50 * time.Millisecond})
	_, err := call(t, toolNamed(t, tools, "s_slow_write"), `{}`)
	var te *action.ToolTimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 50*time.Millisecond, te.After)
	got, err := call(t, toolNamed(t, tools, "s_echo"), `{"text": "still here"}`)
	require.NoError(t, err)
	assert.Equal(t, "still here", got)
	assert.Equal(t, int64(1), n.sessions.Load())
}

func TestOnlyReadOnlyOrIdempotentCallsAreRetried(t *testing.T) {
	tests := []struct {
		name   string
		tool   string
		retry  bool
		calls  int64
		answer bool
	}{
		{"read-only tool", "slow_read", false, 2, true},
		{"side effects", "slow_write", false, 1, false},
		{"side effects with retry_calls", "slow_write", true, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &counts{}
			c := client.New(quick(client.Options{Transport: memory(newTestServer(n))}))
			defer c.Close()
			srv := mcp.Server{Command: "s", CallTimeout: 50 * time.Millisecond, RetryCalls: tt.retry}
			tool := toolNamed(t, open(t, c, srv), "s_"+tt.tool)
			got, err := call(t, tool, `{"times": 1}`)
			assert.Equal(t, tt.calls, n.called(tt.tool))
			if tt.answer {
				require.NoError(t, err)
				assert.Equal(t, "answered on call 2", got)
			} else {
				assert.ErrorIs(t, err, context.DeadlineExceeded)
			}
		})
	}
}

func TestConcurrentCallsShareOneSession(t *testing.T) {
	n := &counts{}
	c := client.New(quick(client.Options{Transport: memory(newTestServer(n))}))
	defer c.Close()
	echo := toolNamed(t, open(t, c, mcp.Server{Command: "s"}), "s_echo")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			got, err := echo.Call(context.Background(), json.RawMessage(`{"text": "hi"}`))
			assert.NoError(t, err)
			assert.Equal(t, "hi", got)
		})
	}
	wg.Wait()
	assert.Equal(t, int64(1), n.sessions.Load())
	assert.Equal(t, int64(20), n.called("echo"))
}

func TestToolListsAreCachedAndRefreshedOnListChanged(t *testing.T) {
	n := &counts{}
	s := newTestServer(n)
	c := client.New(quick(client.Options{Transport: memory(s), Scope: client.PerConnector}))
	defer c.Close()
	srv := mcp.Server{Command: "s"}
	first := open(t, c, srv)
	lists := n.lists.Load()
	assert.Len(t, open(t, c, srv), len(first))
	assert.Equal(t, lists, n.lists.Load(), "the second execution uses the cached list")
	assert.Equal(t, int64(1), n.sessions.Load(), "PerConnector keeps the session")

	s.RemoveTools("fail")
	require.Eventually(t, func() bool { return len(open(t, c, srv)) == len(first)-1 }, 5*time.Second, 20*time.Millisecond,
		"tools/list_changed makes the next execution list again")
}

func TestPerExecutionSessionsCloseOnRelease(t *testing.T) {
	n := &counts{}
	c := client.New(quick(client.Options{Transport: memory(newTestServer(n))}))
	defer c.Close()
	srv := mcp.Server{Command: "s"}
	tools, release, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{srv, srv}})
	require.NoError(t, err)
	assert.Len(t, tools, 16, "the same server twice: its tools twice, with suffixes")
	assert.Equal(t, int64(1), n.sessions.Load(), "one session per configuration")
	release()
	release() // idempotent
	_, err = call(t, toolNamed(t, tools, "s_echo"), `{"text": "x"}`)
	assert.ErrorContains(t, err, "closed")
	open(t, c, srv)
	assert.Equal(t, int64(2), n.sessions.Load(), "a new execution opens a new session")
}

func TestUnreachableServersAreSkippedUnlessRequired(t *testing.T) {
	var dials int
	var mu sync.Mutex
	opts := quick(client.Options{Transport: func(ctx context.Context, s mcp.Server) (sdkTransport, error) {
		mu.Lock()
		dials++
		mu.Unlock()
		return nil, errors.New("connection refused")
	}})
	lg := &logs{}
	opts.Logger = lg.logger()
	c := client.New(opts)
	defer c.Close()
	tools, release, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{{Command: "down"}}})
	defer release()
	require.NoError(t, err)
	assert.Empty(t, tools)
	assert.Equal(t, client.DefaultAttempts, dials, "connecting is retried")
	assert.Contains(t, lg.text(), "WARN mcp: server down skipped: connection refused")

	_, release2, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{{Command: "down", Required: true}}})
	defer release2()
	require.ErrorContains(t, err, "mcp: required server down: connection refused")
}

func TestConnectTimeout(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	opts := quick(client.Options{Attempts: 1, Transport: func(ctx context.Context, s mcp.Server) (sdkTransport, error) {
		t1, t2 := newPipes()
		go func() { <-block; t1.Close() }() // a server that never answers
		return t2, nil
	}})
	c := client.New(opts)
	defer c.Close()
	_, release, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{{Command: "mute", ConnectTimeout: 50 * time.Millisecond, Required: true}}})
	defer release()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "connecting timed out after 50ms")
}

func TestClosedConnectorRefusesWork(t *testing.T) {
	c := client.New(quick(client.Options{Transport: memory(newTestServer(&counts{}))}))
	require.NoError(t, c.Close())
	_, release, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{{Command: "s", Required: true}}})
	defer release()
	assert.ErrorIs(t, err, client.ErrClosed)
}

func TestListTimeout(t *testing.T) {
	s := newTestServer(&counts{})
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" {
				<-ctx.Done() // a server that never lists its tools
				return nil, ctx.Err()
			}
			return next(ctx, method, req)
		}
	})
	c := client.New(quick(client.Options{Transport: memory(s), Attempts: 1}))
	defer c.Close()
	_, release, err := c.Tools(t.Context(), mcp.Request{Servers: []mcp.Server{{Command: "s", ListTimeout: 30 * time.Millisecond, Required: true}}})
	defer release()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "listing tools: listing tools timed out after 30ms")
}

// TestConcurrentExecutionsShareOneSession starts executions at once on a
// PerConnector connector: they share one session and the cached tool list
// (run with -race), and each gets the tool whose schema the client completed.
func TestConcurrentExecutionsShareOneSession(t *testing.T) {
	n := &counts{}
	s := newTestServer(n)
	// A raw tool whose schema has no properties: the client adds them.
	s.AddTool(&sdk.Tool{Name: "bare", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	})
	c := client.New(quick(client.Options{Transport: memory(s), Scope: client.PerConnector}))
	defer c.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			tools, release, err := c.Tools(context.Background(), mcp.Request{Servers: []mcp.Server{{Command: "s", Tool: "bare"}}})
			defer release()
			assert.NoError(t, err)
			if !assert.Len(t, tools, 1) {
				return
			}
			bare := tools[0].(*client.Tool)
			assert.Equal(t, "bare", bare.Original())
			assert.Equal(t, map[string]any{"type": "object", "properties": map[string]any{}}, bare.Spec().Parameters)
			got, err := bare.Call(context.Background(), json.RawMessage(`{}`))
			assert.NoError(t, err)
			assert.Equal(t, "ok", got)
		})
	}
	wg.Wait()
	assert.Equal(t, int64(1), n.sessions.Load())
}
