package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/mcp/client"
)

// The test binary doubles as a stdio MCP server: run with
// TROUPE_MCP_TEST_SERVER=1 it serves testServer over stdin and stdout.
func TestMain(m *testing.M) {
	if os.Getenv("TROUPE_MCP_TEST_SERVER") == "1" {
		serveStdio()
		return
	}
	os.Exit(m.Run())
}

func serveStdio() {
	if path := os.Getenv("TROUPE_MCP_PIDFILE"); path != "" {
		_ = os.WriteFile(path, fmt.Appendf(nil, "%d", os.Getpid()), 0o644)
	}
	fmt.Fprintln(os.Stderr, "test server ready")
	if os.Getenv("TROUPE_MCP_STUBBORN") == "1" {
		// A server that neither exits when its stdin closes nor on SIGTERM.
		signal.Ignore(syscall.SIGTERM)
		defer time.Sleep(time.Hour)
	}
	s := newTestServer(&counts{})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
	}
}

// counts records what a test server was asked.
type counts struct {
	calls    sync.Map // tool name -> *atomic.Int64
	lists    atomic.Int64
	sessions atomic.Int64
}

func (c *counts) call(name string) int64 {
	v, _ := c.calls.LoadOrStore(name, new(atomic.Int64))
	return v.(*atomic.Int64).Add(1)
}

// called returns how often the tool was called.
func (c *counts) called(name string) int64 {
	v, ok := c.calls.Load(name)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

type textIn struct {
	Text string `json:"text" jsonschema:"the text"`
}

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type slowIn struct {
	// Times the call answers only after the context ends; 0: forever.
	Times int `json:"times,omitempty"`
}

type sum struct {
	Sum int `json:"sum"`
}

// newTestServer is an MCP server with a tool for each result shape.
func newTestServer(c *counts) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ServerOptions{PageSize: 2})
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes the text"}, func(ctx context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
		c.call("echo")
		return text(in.Text), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "addNumbers", Description: "Adds a and b"}, func(ctx context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, sum, error) {
		c.call("addNumbers")
		return nil, sum{in.A + in.B}, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fail"}, func(ctx context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
		c.call("fail")
		return nil, nil, errors.New("no such file: " + in.Text)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "mixed", Description: "Returns every kind of content"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		c.call("mixed")
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "first"},
			&sdk.ImageContent{Data: []byte("PNGDATA"), MIMEType: "image/png"},
			&sdk.ResourceLink{URI: "file:///a.txt", Name: "a"},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b.txt", MIMEType: "text/plain", Text: "bee"}},
			&sdk.AudioContent{Data: []byte("WAV"), MIMEType: "audio/wav"},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///c.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2}}},
			&sdk.TextContent{Text: "last"},
		}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "structured"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		c.call("structured")
		return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"ok": true}}, nil, nil
	})
	slow := func(name string) sdk.ToolHandlerFor[slowIn, any] {
		return func(ctx context.Context, _ *sdk.CallToolRequest, in slowIn) (*sdk.CallToolResult, any, error) {
			n := c.call(name)
			if in.Times == 0 || n <= int64(in.Times) {
				<-ctx.Done()
				return nil, nil, ctx.Err()
			}
			return text(fmt.Sprintf("answered on call %d", n)), nil, nil
		}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "slow_write"}, slow("slow_write"))
	sdk.AddTool(s, &sdk.Tool{Name: "slow_read", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, slow("slow_read"))
	sdk.AddTool(s, &sdk.Tool{Name: "environment"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		wd, _ := os.Getwd()
		return text("cwd=" + wd + "\n" + strings.Join(os.Environ(), "\n")), nil, nil
	})
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			switch method {
			case "tools/list":
				c.lists.Add(1)
			case "initialize":
				c.sessions.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// memory returns a Transport option serving s over in-memory pipes.
func memory(s *sdk.Server) func(context.Context, mcp.Server) (sdk.Transport, error) {
	return func(ctx context.Context, _ mcp.Server) (sdk.Transport, error) {
		t1, t2 := sdk.NewInMemoryTransports()
		if _, err := s.Connect(ctx, t1, nil); err != nil {
			return nil, err
		}
		return t2, nil
	}
}

// httpServer serves s over streamable HTTP, or the SSE transport.
func httpServer(t *testing.T, s *sdk.Server, sse bool) *httptest.Server {
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	if sse {
		h = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// stdioServer is an entry that runs this test binary as a stdio server,
// writing its pid to pidfile.
func stdioServer(t *testing.T, pidfile string) mcp.Server {
	exe, err := os.Executable()
	require.NoError(t, err)
	return mcp.Server{Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{"TROUPE_MCP_TEST_SERVER": "1", "TROUPE_MCP_PIDFILE": pidfile}}
}

// events records the events reported into a context.
type events struct {
	mu  sync.Mutex
	all []action.Event
}

func (e *events) observe(ev action.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) kinds() []action.EventKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []action.EventKind
	for _, ev := range e.all {
		out = append(out, ev.Kind)
	}
	return out
}

func (e *events) of(k action.EventKind) []action.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []action.Event
	for _, ev := range e.all {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// logs collects a logger's records.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logger() *slog.Logger { return slog.New(&logHandler{l}) }

func (l *logs) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

type logHandler struct{ l *logs }

func (h *logHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	h.l.lines = append(h.l.lines, r.Level.String()+" "+r.Message)
	return nil
}
func (h *logHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logHandler) WithGroup(string) slog.Handler      { return h }

// quick are options for tests: short backoff and stop timeout.
func quick(o client.Options) client.Options {
	o.Backoff = time.Millisecond
	o.StopTimeout = 500 * time.Millisecond
	return o
}

// toolNamed finds a tool by its name for the model.
func toolNamed(t *testing.T, tools []action.Tool, name string) action.Tool {
	t.Helper()
	for _, tool := range tools {
		if tool.Spec().Name == name {
			return tool
		}
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Spec().Name)
	}
	t.Fatalf("no tool %q among %v", name, names)
	return nil
}

type sdkTransport = sdk.Transport

// newPipes returns the server end of an in-memory connection, which never
// reads nor answers, and the client's transport.
func newPipes() (interface{ Close() error }, sdk.Transport) {
	t1, t2 := sdk.NewInMemoryTransports()
	conn, err := t1.Connect(context.Background())
	if err != nil {
		panic(err)
	}
	return conn, t2
}
