package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/mcp"
)

func ptr[T any](v T) *T { return &v }

func TestParseForms(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want mcp.Server
	}{
		{"https URL", "https://mcp.example.com/api?key=1",
			mcp.Server{Ref: "https://mcp.example.com/api?key=1", Transport: mcp.TransportStreamableHTTP, URL: "https://mcp.example.com/api?key=1"}},
		{"https URL with #tool", "https://mcp.example.com/api#search_docs",
			mcp.Server{Ref: "https://mcp.example.com/api#search_docs", Transport: mcp.TransportStreamableHTTP, URL: "https://mcp.example.com/api", Tool: "search_docs"}},
		{"slug", "notion", mcp.Server{Ref: "notion", Transport: mcp.TransportAMP, Slug: "notion"}},
		{"slug with #tool", "notion#search", mcp.Server{Ref: "notion#search", Transport: mcp.TransportAMP, Slug: "notion", Tool: "search"}},
		{"legacy slug", "crewai-amp:notion", mcp.Server{Ref: "crewai-amp:notion", Transport: mcp.TransportAMP, Slug: "notion"}},
		{"slug with a Unicode #tool", "notion#recherché", mcp.Server{Ref: "notion#recherché", Transport: mcp.TransportAMP, Slug: "notion", Tool: "recherché"}},
		{"stdio", map[string]any{"command": "npx", "args": []any{"-y", "@modelcontextprotocol/server-filesystem", "/data"},
			"env": map[string]any{"TOKEN": "x"}, "cache_tools_list": true},
			mcp.Server{Transport: mcp.TransportStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/data"},
				Env: map[string]string{"TOKEN": "x"}, CacheToolsList: ptr(true)}},
		{"stdio wins over url", map[string]any{"command": "srv", "url": "http://x"}, mcp.Server{Transport: mcp.TransportStdio, Command: "srv"}},
		{"streamable HTTP", map[string]any{"url": "http://localhost:8000/mcp", "headers": map[string]any{"Authorization": "Bearer t"}, "streamable": false},
			mcp.Server{Transport: mcp.TransportStreamableHTTP, URL: "http://localhost:8000/mcp", Headers: map[string]string{"Authorization": "Bearer t"}, Streamable: ptr(false)}},
		{"SSE", map[string]any{"url": "https://x.dev/sse", "transport": "sse", "verify": false},
			mcp.Server{Transport: mcp.TransportSSE, URL: "https://x.dev/sse", Verify: ptr(false)}},
		{"CA bundle", map[string]any{"url": "https://x.dev/mcp", "verify": "/etc/ca.pem"},
			mcp.Server{Transport: mcp.TransportStreamableHTTP, URL: "https://x.dev/mcp", CAFile: "/etc/ca.pem"}},
		{"extensions", map[string]any{"command": "srv", "cwd": "/tmp", "prefix": "fs", "connect_timeout": int64(5), "list_timeout": 2.5,
			"call_timeout": int64(90), "retry_calls": true, "required": true,
			"tool_filter": map[string]any{"type": "static", "allowed_tool_names": []any{"read"}, "blocked_tool_names": []any{"write"}}},
			mcp.Server{Transport: mcp.TransportStdio, Command: "srv", Dir: "/tmp", Prefix: ptr("fs"), ConnectTimeout: 5 * time.Second,
				ListTimeout: 2500 * time.Millisecond, CallTimeout: 90 * time.Second, RetryCalls: true, Required: true,
				Filter: &mcp.Filter{Allowed: []string{"read"}, Blocked: []string{"write"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ps := mcp.Parse(tt.in, "mcps[0]")
			require.NoError(t, ps.Err())
			assert.Equal(t, tt.want, got)
			back, ps := mcp.Parse(got.Data(), "mcps[0]")
			require.NoError(t, ps.Err(), "Data parses back")
			assert.Equal(t, got, back, "Data round-trips")
		})
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		path    string
		msg     string
		warning bool
	}{
		{"http string", "http://localhost:8000/mcp", "",
			"Invalid MCP reference: 'http://localhost:8000/mcp'. String references must be an 'https://' URL or a valid slug (e.g. 'notion', 'notion#search', 'crewai-amp:notion').", false},
		{"bad slug", "my server", "", "Invalid MCP reference: 'my server'.", false},
		{"slug starting with a dash", "-notion", "", "Invalid MCP reference: '-notion'.", false},
		{"https without host", "https://", "", "is not a valid URL with a host", false},
		{"not a string or map", int64(3), "", "an MCP server is a string", false},
		{"neither command nor url", map[string]any{"args": []any{"x"}}, "", "Field required [type=missing]: an MCP server mapping needs command (a stdio server) or url (an HTTP server)", false},
		{"command not a string", map[string]any{"command": []any{"npx"}}, "command", "Input should be a valid string [type=string_type]", false},
		{"empty command", map[string]any{"command": " "}, "command", "command must not be empty", false},
		{"args not strings", map[string]any{"command": "npx", "args": []any{"-y", int64(3)}}, "args", "args must be a list of strings", false},
		{"env value not a string", map[string]any{"command": "npx", "env": map[string]any{"PORT": int64(8080)}}, "env.PORT", "env.PORT must be a string, got the integer 8080 (quote it)", false},
		{"env not a map", map[string]any{"command": "npx", "env": []any{"A=1"}}, "env", "env must be a mapping of names to strings", false},
		{"url not http", map[string]any{"url": "localhost:8000"}, "url", "url must be an http:// or https:// URL with a host", false},
		{"headers not strings", map[string]any{"url": "http://x", "headers": map[string]any{"X": true}}, "headers.X", "must be a string", false},
		{"bool", map[string]any{"url": "http://x", "streamable": "yes"}, "streamable", "Input should be a valid boolean [type=bool_type]", false},
		{"allowed not strings", map[string]any{"command": "x", "tool_filter": map[string]any{"type": "static", "allowed_tool_names": "read"}},
			"tool_filter.allowed_tool_names", "mcps[2].tool_filter.allowed_tool_names must be a list of strings", false},
		{"blocked not strings", map[string]any{"command": "x", "tool_filter": map[string]any{"type": "static", "blocked_tool_names": []any{int64(1)}}},
			"tool_filter.blocked_tool_names", "mcps[2].tool_filter.blocked_tool_names must be a list of strings", false},
		{"python filter", map[string]any{"command": "x", "tool_filter": map[string]any{"python": "my.filter"}}, "tool_filter", "a Python filter cannot run in Troupe", false},
		{"filter without type", map[string]any{"command": "x", "tool_filter": map[string]any{"allowed_tool_names": []any{"a"}}}, "tool_filter", "tool_filter must have type: static", false},
		{"timeout", map[string]any{"command": "x", "call_timeout": int64(0)}, "call_timeout", "call_timeout must be a positive number of seconds, got 0", false},
		{"timeout not a number", map[string]any{"command": "x", "list_timeout": "30s"}, "list_timeout", "list_timeout must be a number of seconds", false},
		{"transport", map[string]any{"url": "http://x", "transport": "websocket"}, "transport", "transport must be stdio, streamable-http (or http) or sse", false},
		{"sse without url", map[string]any{"transport": "sse"}, "url", "Field required [type=missing]: url", false},
		{"unknown key", map[string]any{"command": "x", "comand": "y"}, "comand", `unknown key "comand" is ignored: it is not a key of an MCP server (CrewAI ignores it too). Did you mean "command"?`, true},
		{"key of another transport", map[string]any{"command": "x", "headers": map[string]any{}}, "headers", "headers does not apply to a stdio server and is ignored", true},
		{"url beside command", map[string]any{"command": "x", "url": "http://x"}, "url", "url is ignored: a server with a command runs over stdio", true},
		{"streamable on SSE", map[string]any{"url": "http://x", "transport": "sse", "streamable": true}, "streamable", "streamable does not apply to a sse server", true},
		{"unknown filter key", map[string]any{"command": "x", "tool_filter": map[string]any{"type": "static", "enabled": true}}, "tool_filter.enabled", `unknown key "enabled" of a static tool_filter is ignored`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := mcp.Parse(tt.in, "mcps[2]")
			require.Len(t, ps, 1, "%v", ps)
			assert.Equal(t, tt.path, ps[0].Path)
			assert.Contains(t, ps[0].Message, tt.msg)
			assert.Equal(t, tt.warning, ps[0].Warning)
			if tt.warning {
				assert.NoError(t, ps.Err())
			} else {
				assert.ErrorContains(t, ps.Err(), tt.msg)
			}
		})
	}
}

func TestValidateGoServers(t *testing.T) {
	ok := []mcp.Server{
		{Command: "npx"},
		{URL: "https://x.dev/mcp"},
		{URL: "https://x.dev/sse", Transport: mcp.TransportSSE},
		func() mcp.Server { s, _ := mcp.Parse("https://x.dev/mcp#a", "mcps[0]"); return s }(),
	}
	for _, s := range ok {
		assert.NoError(t, s.Validate("mcps[0]").Err(), "%v", s)
	}
	bad := []struct {
		server mcp.Server
		msg    string
	}{
		{mcp.Server{}, "needs a command"},
		{mcp.Server{URL: "ftp://x"}, "url must be an http:// or https:// URL"},
		{mcp.Server{Ref: "https://x.dev/mcp"}, "build servers from strings with mcp.Parse"},
		{mcp.Server{Ref: "http://x"}, "Invalid MCP reference: 'http://x'"},
		{mcp.Server{Command: "x", CallTimeout: -time.Second}, "call_timeout must be a positive number"},
		{mcp.Server{Command: "x", Transport: "carrier-pigeon"}, "transport must be stdio"},
	}
	for _, tt := range bad {
		assert.ErrorContains(t, tt.server.Validate("mcps[0]").Err(), tt.msg)
	}
}

func TestServerDescriptions(t *testing.T) {
	stdio := mcp.Server{Command: "npx", Args: []string{"-y", "pkg"}}
	assert.Equal(t, "npx -y pkg", stdio.Name())
	assert.Equal(t, "stdio", stdio.TransportType())
	assert.Equal(t, mcp.EventDetail{ServerName: "npx -y pkg", TransportType: "stdio"}, stdio.Detail())

	web, _ := mcp.Parse(map[string]any{"url": "http://localhost:8000/mcp", "streamable": false}, "mcps[0]")
	assert.Equal(t, "localhost:8000", web.Name())
	assert.Equal(t, "http", web.TransportType())
	assert.Equal(t, "http://localhost:8000/mcp", web.Detail().ServerURL)

	c, l, call := stdio.Timeouts()
	assert.Equal(t, []time.Duration{30 * time.Second, 30 * time.Second, 60 * time.Second}, []time.Duration{c, l, call})

	a, _ := mcp.Parse(map[string]any{"command": "npx", "args": []any{"x"}, "tool_filter": map[string]any{"type": "static", "allowed_tool_names": []any{"a"}}}, "")
	b, _ := mcp.Parse(map[string]any{"command": "npx", "args": []any{"x"}, "prefix": "p"}, "")
	assert.Equal(t, a.Key(), b.Key(), "entries that differ in the tools they keep share a connection")
	e, _ := mcp.Parse(map[string]any{"command": "npx", "args": []any{"x"}, "env": map[string]any{"A": "1"}}, "")
	assert.NotEqual(t, a.Key(), e.Key())
}
