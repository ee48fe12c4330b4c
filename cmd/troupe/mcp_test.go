package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type lookupIn struct {
	Order string `json:"order" jsonschema:"the order number"`
}

// mcpTestServer serves a small MCP server over streamable HTTP (or SSE).
func mcpTestServer(t *testing.T, sse bool) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "orders", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "lookupOrder", Description: "Looks an order up.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in lookupIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "order " + in.Order + " shipped"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "cancel_order"}, func(ctx context.Context, _ *sdk.CallToolRequest, in lookupIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "cancelled"}}}, nil, nil
	})
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	path := "/mcp"
	if sse {
		h, path = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil), "/sse"
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + path
}

func TestMCPToolsListsAsTheModelSeesThem(t *testing.T) {
	inTempDir(t)
	url := mcpTestServer(t, false)
	code, out, errOut := runCLI(t, "mcp", "tools", url)
	require.Equal(t, 0, code, errOut)
	host := url[len("http://") : len(url)-len("/mcp")]
	prefix := sanitizedHost(host) + "_mcp"
	assert.Equal(t, host+` (streamable-http): 2 tools

  `+prefix+`_cancel_order  (on the server: cancel_order)
    Tool cancel_order from `+host+`
    arguments: {"additionalProperties":false,"properties":{"order":{"description":"the order number","type":"string"}},"required":["order"],"type":"object"}

  `+prefix+`_lookup_order  (on the server: lookupOrder)  [read-only or idempotent: retried]
    Looks an order up.
    arguments: {"additionalProperties":false,"properties":{"order":{"description":"the order number","type":"string"}},"required":["order"],"type":"object"}
`, out)
}

// sanitizedHost is host as a tool name prefix: 127.0.0.1:PORT -> 127_0_0_1_PORT.
func sanitizedHost(host string) string {
	b := []byte(host)
	for i, c := range b {
		if c == '.' || c == ':' {
			b[i] = '_'
		}
	}
	return string(b)
}

func TestMCPToolsJSONAndUniqueNames(t *testing.T) {
	inTempDir(t)
	url := mcpTestServer(t, true)
	code, out, errOut := runCLI(t, "mcp", "tools", "--sse", "--json", url, url)
	require.Equal(t, 0, code, errOut)
	var report []mcpServerInfo
	require.NoError(t, json.Unmarshal([]byte(out), &report))
	require.Len(t, report, 2)
	assert.Equal(t, "sse", report[0].Transport)
	require.Len(t, report[1].Tools, 2)
	assert.Equal(t, report[0].Tools[1].Name+"_2", report[1].Tools[1].Name, "names are unique among the listed servers")
	assert.Equal(t, "lookupOrder", report[1].Tools[1].Original)
	assert.True(t, report[1].Tools[1].Retried)
	assert.Equal(t, "object", report[0].Tools[0].InputSchema["type"])
}

func TestMCPToolsCommandLine(t *testing.T) {
	inTempDir(t)
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"mcp", "tools"}, exitUsage, `troupe: name a server: a URL, or --stdio "COMMAND ARGS"`},
		{[]string{"mcp", "tools", "--stdio", `npx "unclosed`}, exitUsage, `--stdio "npx \"unclosed": unclosed " quote`},
		{[]string{"mcp", "tools", "--header", "NoEquals", "http://x"}, exitUsage, `--header "NoEquals": want NAME=VALUE`},
		{[]string{"mcp", "tools", "ftp://x"}, exitUsage, "url must be an http:// or https:// URL"},
		{[]string{"mcp", "tools", "--stdio", "troupe-no-such-command"}, exitFail, `troupe: mcp: required server troupe-no-such-command: exec: "troupe-no-such-command": executable file not found`},
		{[]string{"run", "--mcp-sessions", "forever", "flow.yaml"}, exitUsage, `--mcp-sessions "forever": want execution or run`},
	}
	flowFile(t, ".", "flow.yaml", "schema: crewai.flow/v1\nname: F\nmethods:\n  a: {start: true, do: {call: expression, expr: \"1\"}}\n")
	for _, tt := range tests {
		code, _, errOut := runCLI(t, tt.args...)
		assert.Equal(t, tt.code, code, "%v: %s", tt.args, errOut)
		assert.Contains(t, errOut, tt.err, "%v", tt.args)
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`npx -y @modelcontextprotocol/server-filesystem /data`, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"}},
		{`node "my server.js"  --flag='a b'`, []string{"node", "my server.js", "--flag=a b"}},
		{`echo '' x\ y`, []string{"echo", "", "x y"}},
		{`say "a \"quoted\" word"`, []string{"say", `a "quoted" word`}},
	}
	for _, tt := range tests {
		got, err := shellWords(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	_, err := shellWords(`end\`)
	assert.Error(t, err)
}

func TestRunGivesAgentsTheirMCPTools(t *testing.T) {
	dir := inTempDir(t)
	url := mcpTestServer(t, false)
	flowFile(t, dir, "flow.yaml", `schema: crewai.flow/v1
name: Orders
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: Support
        goal: Answer
        backstory: Helpful.
        input: "Where is order 7?"
        mcps:
          - {url: "`+url+`", prefix: orders}
          - notion
`)
	flowFile(t, dir, "replies.yaml", `replies:
  - match: "order 7 shipped"
    text: "Order 7 has shipped."
  - tool_calls: [{name: orders_lookup_order, arguments: {order: "7"}}]
`)
	code, out, errOut := runCLI(t, "run", "flow.yaml", "--llm-script", "replies.yaml")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "Order 7 has shipped.\n", out)
	assert.Contains(t, errOut, "troupe: warning: mcp: Config for 'notion' not found. Make sure it is connected in your account.",
		"an AMP slug is skipped with a warning")

	code, _, errOut = runCLI(t, "run", "flow.yaml", "--llm-script", "replies.yaml", "--mcp-sessions", "run")
	require.Equal(t, 0, code, errOut)
}

func TestValidateReportsMCPEntries(t *testing.T) {
	dir := inTempDir(t)
	flowFile(t, dir, "flow.yaml", `schema: crewai.flow/v1
name: Bad
methods:
  ask:
    start: true
    do:
      call: agent
      with: {role: R, goal: G, backstory: B, input: "x", mcps: ["http://localhost:8000/mcp"]}
`)
	code, _, errOut := runCLI(t, "validate", "flow.yaml")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "flow.yaml:8:65: error: methods.ask.do.with.mcps[0]: Invalid MCP reference: 'http://localhost:8000/mcp'. String references must be an 'https://' URL or a valid slug")
}
