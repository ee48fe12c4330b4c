package flow_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/mcp"
)

const mcpFlow = `schema: crewai.flow/v1
name: Tools
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: Helper
        goal: Help
        backstory: Helpful.
        input: "Go"
        mcps:
          - https://api.example.com/mcp#search
          - notion
          - crewai-amp:linear#issues
          - command: npx
            args: ["-y", "@modelcontextprotocol/server-filesystem", "/data"]
            env: {TOKEN: "x"}
            tool_filter: {type: static, allowed_tool_names: [read_file]}
          - url: http://localhost:8000/mcp
            headers: {Authorization: "Bearer t"}
            streamable: false
            call_timeout: 90
          - {url: "https://x.dev/sse", transport: sse, required: true, prefix: x}
  team:
    listen: ask
    do:
      call: crew
      with:
        agents:
          writer:
            role: Writer
            goal: Write
            backstory: Writes.
            settings:
              mcps: [{command: uvx, args: [mcp-server-fetch]}]
        tasks:
          - {description: Write, expected_output: Text, agent: writer}
        mcps: ["https://team.example.com/mcp"]
`

func TestMCPFormsLoad(t *testing.T) {
	def, diags := flow.Check([]byte(mcpFlow), "flow.yaml")
	require.Empty(t, diags, "%v", diags)
	servers := def.Methods[0].Do.Agent.MCPs
	require.Len(t, servers, 6)
	assert.Equal(t, mcp.Server{Ref: "https://api.example.com/mcp#search", Transport: mcp.TransportStreamableHTTP, URL: "https://api.example.com/mcp", Tool: "search"}, servers[0])
	assert.Equal(t, "notion", servers[1].Slug)
	assert.Equal(t, mcp.Server{Ref: "crewai-amp:linear#issues", Transport: mcp.TransportAMP, Slug: "linear", Tool: "issues"}, servers[2])
	assert.Equal(t, "npx", servers[3].Command)
	assert.Equal(t, &mcp.Filter{Allowed: []string{"read_file"}}, servers[3].Filter)
	assert.Equal(t, "http", servers[4].TransportType())
	assert.Equal(t, mcp.TransportSSE, servers[5].Kind())
	assert.True(t, servers[5].Required)
	_, hasExtra := def.Methods[0].Do.Agent.Extra["mcps"]
	assert.False(t, hasExtra, "mcps is typed, not kept in Extra")

	writer := def.Methods[1].Do.Crew.Agents[0]
	require.Len(t, writer.MCPs, 1, "a settings block's mcps")
	assert.Equal(t, []string{"mcp-server-fetch"}, writer.MCPs[0].Args)
	require.Len(t, def.Methods[1].Do.Crew.MCPs, 1, "a crew's mcps")
	assert.Equal(t, "https://team.example.com/mcp", def.Methods[1].Do.Crew.MCPs[0].URL)
}

func TestMCPFormsRoundTrip(t *testing.T) {
	def, err := flow.Parse([]byte(mcpFlow), "flow.yaml")
	require.NoError(t, err)
	out, err := def.YAML()
	require.NoError(t, err)
	back, err := flow.Parse(out, "again.yaml")
	require.NoError(t, err, "%s", out)
	assert.Equal(t, def.Methods[0].Do.Agent.MCPs, back.Methods[0].Do.Agent.MCPs)
	assert.Equal(t, def.Methods[1].Do.Crew.Agents[0].MCPs, back.Methods[1].Do.Crew.Agents[0].MCPs)
	assert.Equal(t, def.Methods[1].Do.Crew.MCPs, back.Methods[1].Do.Crew.MCPs)
	assert.Equal(t, 1, strings.Count(string(out), "mcp-server-fetch"), "a settings block's mcps is written once:\n%s", out)
}

func TestMCPDiagnosticsHavePositions(t *testing.T) {
	src := `schema: crewai.flow/v1
name: Bad
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: Helper
        goal: Help
        backstory: Helpful.
        input: "Go"
        mcps:
          - http://localhost:8000/mcp
          - command: npx
            args: [-y, 3]
            tool_filter: {type: static, allowed_tool_names: read_file}
          - {args: [x]}
          - url: localhost
            comand: x
  team:
    listen: ask
    do:
      call: crew
      with:
        agents:
          - name: w
            role: W
            goal: G
            backstory: B
            mcps: notion
        tasks: [{description: d, expected_output: o}]
`
	_, diags := flow.Check([]byte(src), "flow.yaml")
	type diag struct {
		line, col int
		path, msg string
		warning   bool
	}
	want := []diag{
		{14, 13, "methods.ask.do.with.mcps[0]", "Invalid MCP reference: 'http://localhost:8000/mcp'. String references must be an 'https://' URL or a valid slug (e.g. 'notion', 'notion#search', 'crewai-amp:notion').", false},
		{16, 13, "methods.ask.do.with.mcps[1].args", "args must be a list of strings", false},
		{17, 41, "methods.ask.do.with.mcps[1].tool_filter.allowed_tool_names", "mcps[1].tool_filter.allowed_tool_names must be a list of strings", false},
		{18, 13, "methods.ask.do.with.mcps[2]", "an MCP server mapping needs command (a stdio server) or url (an HTTP server)", false},
		{19, 13, "methods.ask.do.with.mcps[3].url", "url must be an http:// or https:// URL with a host, got 'localhost'", false},
		{20, 13, "methods.ask.do.with.mcps[3].comand", `unknown key "comand" is ignored: it is not a key of an MCP server (CrewAI ignores it too). Did you mean "command"?`, true},
		{31, 13, "methods.team.do.with.agents[0].mcps", "mcps must be a list of MCP servers", false},
	}
	var got []diag
	for _, d := range diags {
		got = append(got, diag{d.Line, d.Column, d.Path, d.Message, d.Severity == flow.SeverityWarning})
	}
	require.Len(t, got, len(want), "%v", diags)
	for i, w := range want {
		assert.Equal(t, w.line, got[i].line, "line of %s", w.path)
		assert.Equal(t, w.col, got[i].col, "column of %s", w.path)
		assert.Equal(t, w.path, got[i].path)
		assert.Contains(t, got[i].msg, w.msg)
		assert.Equal(t, w.warning, got[i].warning, w.path)
	}
}

func TestBuiltAgentsMCPsAreChecked(t *testing.T) {
	agent := &flow.Agent{Role: "Helper", Goal: "Help", Backstory: "Helpful.", Input: "go",
		MCPs: []mcp.Server{{Command: "npx", Args: []string{"srv"}}, {URL: "ftp://x"}}}
	_, err := flow.New("Built").Method("ask", flow.AgentAction(agent)).Start().Build()
	require.Error(t, err)
	var diags flow.Diagnostics
	require.ErrorAs(t, err, &diags)
	require.Len(t, diags, 1)
	assert.Equal(t, "methods.ask.do.with.mcps[1].url", diags[0].Path)
	assert.Contains(t, diags[0].Message, "url must be an http:// or https:// URL")

	agent.MCPs = agent.MCPs[:1]
	def, err := flow.New("Built").Method("ask", flow.AgentAction(agent)).Start().Build()
	require.NoError(t, err)
	out, err := def.YAML()
	require.NoError(t, err)
	assert.Contains(t, string(out), "mcps:")
	back, err := flow.Parse(out, "built.yaml")
	require.NoError(t, err)
	assert.Equal(t, []mcp.Server{{Transport: mcp.TransportStdio, Command: "npx", Args: []string{"srv"}}}, back.Methods[0].Do.Agent.MCPs)
}
