package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/mcp/client"
)

func detail(t *testing.T, ev action.Event) mcp.EventDetail {
	t.Helper()
	d, ok := ev.Detail.(mcp.EventDetail)
	require.True(t, ok, "%s carries an mcp.EventDetail", ev.Kind)
	return d
}

func TestEventsNestUnderTheAgentAndCallsPassInterceptors(t *testing.T) {
	lg := &logs{}
	c := client.New(quick(client.Options{Transport: memory(newTestServer(&counts{})), Logger: lg.logger()}))
	defer c.Close()
	m := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("s_echo", `{"text": "hi"}`))),
		fake.Times(1, fake.Match("(?m)^hi$", fake.ToolCalls(fake.Call("s_fail", `{"text": "a.txt"}`)))),
		fake.Match("no such file", fake.Text("done")),
	)
	slug, _ := mcp.Parse("notion#search", "mcps[1]")
	spec := &action.AgentSpec{Role: "Tester", Model: m,
		Toolsets: []action.Toolset{mcp.Toolset(c, []mcp.Server{{Command: "s"}, slug})}}
	ev := &events{}
	var mu sync.Mutex
	var intercepted []string
	intercept := func(ctx context.Context, call action.Call, next func(context.Context) (any, error)) (any, error) {
		if call.Kind == action.CallTool {
			mu.Lock()
			intercepted = append(intercepted, call.Name)
			mu.Unlock()
		}
		return next(ctx)
	}
	out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go", Name: "the task"}, &action.RunOptions{Observer: ev.observe, Intercept: intercept})
	require.NoError(t, err)
	assert.Equal(t, "done", out.Raw)
	assert.Equal(t, []string{"s_echo", "s_fail"}, intercepted, "MCP tool calls pass through the interceptor")
	require.Len(t, out.ToolFailures, 1)
	assert.Equal(t, action.FailureMCPError, out.ToolFailures[0].Reason)

	byID := map[int64]action.Event{}
	for _, e := range ev.all {
		byID[e.ID] = e
	}
	parent := func(e action.Event) action.EventKind { return byID[e.Parent].Kind }

	started := ev.of(action.EventMCPConnectionStarted)
	require.Len(t, started, 1)
	assert.Equal(t, action.EventAgentStarted, parent(started[0]), "connecting nests under the agent")
	assert.Equal(t, "Tester", started[0].Agent)
	assert.Equal(t, "the task", started[0].Task)
	d := detail(t, started[0])
	assert.Equal(t, mcp.EventDetail{ServerName: "s", TransportType: "stdio", ConnectTimeout: 30}, d)

	completed := ev.of(action.EventMCPConnectionCompleted)
	require.Len(t, completed, 1)
	assert.Equal(t, started[0].ID, completed[0].Parent)
	d = detail(t, completed[0])
	assert.False(t, d.StartedAt.IsZero())
	assert.False(t, d.CompletedAt.Before(d.StartedAt))

	fetch := ev.of(action.EventMCPConfigFetchFailed)
	require.Len(t, fetch, 1)
	assert.Equal(t, action.EventAgentStarted, parent(fetch[0]))
	d = detail(t, fetch[0])
	assert.Equal(t, "notion", d.Slug)
	assert.Equal(t, "Config for 'notion' not found. Make sure it is connected in your account.", d.Error)
	assert.Equal(t, "not_connected", d.ErrorType)
	assert.Contains(t, lg.text(), "WARN mcp: Config for 'notion' not found.")

	calls := ev.of(action.EventMCPToolExecutionStarted)
	require.Len(t, calls, 2)
	assert.Equal(t, action.EventToolStarted, parent(calls[0]), "a call's events nest under its tool_usage_started")
	d = detail(t, calls[0])
	assert.Equal(t, "echo", d.ToolName, "the server's name for the tool")
	assert.JSONEq(t, `{"text": "hi"}`, string(d.ToolArgs))

	done := ev.of(action.EventMCPToolExecutionCompleted)
	require.Len(t, done, 1)
	assert.Equal(t, calls[0].ID, done[0].Parent)
	d = detail(t, done[0])
	assert.Equal(t, "hi", d.Result)
	assert.False(t, d.StartedAt.IsZero())

	failed := ev.of(action.EventMCPToolExecutionFailed)
	require.Len(t, failed, 1)
	assert.Equal(t, calls[1].ID, failed[0].Parent)
	d = detail(t, failed[0])
	assert.Equal(t, "tool_error", d.ErrorType)
	assert.Equal(t, "no such file: a.txt", d.Error)

	b, err := json.Marshal(detail(t, fetch[0]))
	require.NoError(t, err)
	assert.JSONEq(t, `{"server_name": "notion", "transport_type": "amp", "slug": "notion", "error": "Config for 'notion' not found. Make sure it is connected in your account.", "error_type": "not_connected"}`, string(b),
		"the detail encodes with CrewAI's field names")
}

func TestConnectionFailureEvents(t *testing.T) {
	var dials atomic.Int64
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dials.Add(1)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer refuse.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	tests := []struct {
		name    string
		server  mcp.Server
		errType string
	}{
		{"authentication", mcp.Server{URL: refuse.URL}, "authentication"},
		{"network", mcp.Server{URL: down.URL}, "network"},
		{"timeout", mcp.Server{Command: "mute", ConnectTimeout: 20 * time.Millisecond}, "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dials.Store(0)
			block := make(chan struct{})
			defer close(block)
			opts := quick(client.Options{})
			if tt.server.Command != "" {
				opts.Transport = func(ctx context.Context, s mcp.Server) (sdk.Transport, error) {
					conn, t2 := newPipes()
					go func() { <-block; conn.Close() }()
					return t2, nil
				}
			}
			c := client.New(opts)
			defer c.Close()
			ev := &events{}
			spec := &action.AgentSpec{Role: "Tester", Model: fake.New(fake.Text("done")),
				Toolsets: []action.Toolset{mcp.Toolset(c, []mcp.Server{tt.server})}}
			out, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, &action.RunOptions{Observer: ev.observe})
			require.NoError(t, err, "a server that is not required is skipped")
			assert.Equal(t, "done", out.Raw)
			failed := ev.of(action.EventMCPConnectionFailed)
			require.Len(t, failed, 1)
			assert.Equal(t, tt.errType, detail(t, failed[0]).ErrorType)
			assert.Error(t, failed[0].Err)
			if tt.errType == "authentication" {
				assert.Equal(t, int64(1), dials.Load(), "a refused login is not retried")
			}
		})
	}
}

func TestHeadersReachHTTPServers(t *testing.T) {
	s := newTestServer(&counts{})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	c := client.New(quick(client.Options{}))
	defer c.Close()
	srv := mcp.Server{URL: ts.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer secret"}, Required: true}
	echo := toolNamed(t, open(t, c, srv), mcp.ToolName(srv.ToolPrefix(), "echo"))
	got, err := call(t, echo, `{"text": "in"}`)
	require.NoError(t, err)
	assert.Equal(t, "in", got)
}
