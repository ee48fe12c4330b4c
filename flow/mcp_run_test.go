package flow_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/mcp/client"
)

type mcpEchoIn struct {
	Text string `json:"text"`
}

// mcpServer is an in-memory MCP server with an echo tool and a tool that
// waits for its context to end.
func mcpServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes the text"}, func(ctx context.Context, _ *sdk.CallToolRequest, in mcpEchoIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "wait"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	return s
}

// memoryConnector serves s to every server entry over in-memory pipes.
func memoryConnector(t *testing.T, s *sdk.Server) *client.Connector {
	c := client.New(client.Options{Transport: func(ctx context.Context, _ mcp.Server) (sdk.Transport, error) {
		t1, t2 := sdk.NewInMemoryTransports()
		if _, err := s.Connect(ctx, t1, nil); err != nil {
			return nil, err
		}
		return t2, nil
	}})
	t.Cleanup(func() { c.Close() })
	return c
}

const mcpAgentFlow = `schema: crewai.flow/v1
name: Echo
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: Helper
        goal: Help
        backstory: Helpful.
        input: "Say hi"
        mcps: [{command: srv}]
`

func TestAgentWithMCPsNeedsAConnector(t *testing.T) {
	_, err := flow.NewEngine(flow.WithLLM(fake.New(fake.Text("x")))).Compile(mustParse(t, mcpAgentFlow))
	require.ErrorContains(t, err, `agent "Helper": mcps needs an MCP client: give the engine one with flow.WithMCP`)
	crew := `schema: crewai.flow/v1
name: Crew
methods:
  team:
    start: true
    do:
      call: crew
      with:
        agents: {a: {role: A, goal: G, backstory: B}}
        tasks: [{description: d, expected_output: o}]
        mcps: [notion]
`
	_, err = flow.NewEngine(flow.WithLLM(fake.New(fake.Text("x")))).Compile(mustParse(t, crew))
	require.ErrorContains(t, err, "crew action: mcps needs an MCP client")
}

func TestAgentCallsMCPTools(t *testing.T) {
	m := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("srv_echo", `{"text": "hi"}`))),
		fake.Match("echo: hi", fake.Text("The server said hi.")),
	)
	var mu sync.Mutex
	var events []flow.Event
	var effects []flow.Effect
	eng := flow.NewEngine(flow.WithLLM(m), flow.WithMCP(memoryConnector(t, mcpServer())),
		flow.WithEvents(func(ev flow.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }),
		flow.WithInterceptor(func(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
			mu.Lock()
			effects = append(effects, e)
			mu.Unlock()
			return next(ctx)
		}))
	res, err := eng.Run(t.Context(), mustParse(t, mcpAgentFlow), nil)
	require.NoError(t, err)
	assert.Equal(t, "The server said hi.", res.Outputs["ask"].(map[string]any)["raw"])
	assert.Equal(t, "srv_echo", m.Requests()[0].Tools[0].Name)
	assert.Equal(t, "Echoes the text", m.Requests()[0].Tools[0].Description)

	var tools []string
	for _, e := range effects {
		if e.Kind == flow.EffectTool {
			tools = append(tools, e.Name)
		}
	}
	assert.Equal(t, []string{"srv_echo"}, tools, "the MCP tool call is an effect like any tool call")

	bySeq := map[int64]flow.Event{}
	find := func(k flow.EventKind) flow.Event {
		for _, ev := range events {
			if ev.Kind == k {
				return ev
			}
		}
		t.Fatalf("no %s event", k)
		return flow.Event{}
	}
	for _, ev := range events {
		bySeq[ev.Seq] = ev
	}
	conn := find(flow.MCPConnectionStarted)
	assert.Equal(t, flow.AgentStarted, bySeq[conn.Parent].Kind, "connecting nests under the agent")
	assert.Equal(t, "ask", conn.Method)
	assert.Equal(t, "Helper", conn.Agent)
	assert.Equal(t, "srv", conn.Detail.(mcp.EventDetail).ServerName)
	assert.Equal(t, conn.Seq, find(flow.MCPConnectionCompleted).Parent)
	call := find(flow.MCPToolExecutionStarted)
	assert.Equal(t, flow.ToolStarted, bySeq[call.Parent].Kind, "the server call nests under the tool call")
	assert.Equal(t, "echo", call.Detail.(mcp.EventDetail).ToolName)
	done := find(flow.MCPToolExecutionCompleted)
	assert.Equal(t, call.Seq, done.Parent)
	assert.Equal(t, "echo: hi", done.Detail.(mcp.EventDetail).Result)
}

func TestCrewAgentsGetTheirAndTheEnginesServers(t *testing.T) {
	crew := func(process string) string {
		return `schema: crewai.flow/v1
name: Crew
methods:
  team:
    start: true
    do:
      call: crew
      with:
        process: ` + process + `
        manager_agent: boss
        agents:
          boss: {role: Boss, goal: Lead, backstory: Leads., mcps: [{command: bossy}]}
          reader: {role: Reader, goal: Read, backstory: Reads., mcps: [{command: docs, prefix: docs}]}
          writer: {role: Writer, goal: Write, backstory: Writes.}
        tasks:
          - {description: Read it, expected_output: Notes, agent: reader}
          - {description: Write it, expected_output: Text, agent: writer}
        mcps: [{command: team}]
`
	}
	run := func(process string) map[string][]string {
		m := fake.New(fake.Text("done"))
		eng := flow.NewEngine(flow.WithLLM(m), flow.WithMCP(memoryConnector(t, mcpServer())),
			flow.WithMCPServers(mcp.Server{Command: "shared", Args: []string{"srv"}}))
		_, err := eng.Run(t.Context(), mustParse(t, crew(process)), nil)
		require.NoError(t, err)
		byRole := map[string][]string{}
		for _, req := range m.Requests() {
			system, _ := prompts(t, req)
			role := strings.TrimSuffix(strings.Fields(strings.TrimPrefix(system, "You are "))[0], ".")
			byRole[role] = toolNamesWith(req, "_")
		}
		return byRole
	}
	got := run("sequential")
	assert.Equal(t, []string{"shared_srv_echo", "shared_srv_wait", "docs_echo", "docs_wait", "team_echo", "team_wait"}, got["Reader"],
		"the engine's servers, the agent's, then the crew's")
	assert.Equal(t, []string{"shared_srv_echo", "shared_srv_wait", "team_echo", "team_wait"}, got["Writer"])
	got = run("hierarchical")
	require.Contains(t, got, "Boss")
	assert.Empty(t, toolNamesMatching(got["Boss"], "srv", "bossy", "team"), "a crew's manager gets no MCP tools")
}

// toolNamesMatching keeps the names that contain one of parts.
func toolNamesMatching(names []string, parts ...string) []string {
	var out []string
	for _, n := range names {
		for _, p := range parts {
			if strings.Contains(n, p) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

func toolNames(req *llm.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

func toolNamesWith(req *llm.Request, part string) []string {
	var out []string
	for _, name := range toolNames(req) {
		if strings.Contains(name, part) {
			out = append(out, name)
		}
	}
	return out
}

func TestCancelledFlowClosesMCPSessions(t *testing.T) {
	s := mcpServer()
	m := fake.New(fake.ToolCalls(fake.Call("srv_wait", `{}`)))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	eng := flow.NewEngine(flow.WithLLM(m), flow.WithMCP(memoryConnector(t, s)),
		flow.WithEvents(func(ev flow.Event) {
			if ev.Kind == flow.MCPToolExecutionStarted {
				cancel()
			}
		}))
	_, err := eng.Run(ctx, mustParse(t, mcpAgentFlow), nil)
	require.ErrorIs(t, err, context.Canceled)
	sessions := func() int {
		n := 0
		for range s.Sessions() {
			n++
		}
		return n
	}
	for deadline := time.Now().Add(5 * time.Second); sessions() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Zero(t, sessions(), "the agent's session was closed when the run was cancelled")
}
