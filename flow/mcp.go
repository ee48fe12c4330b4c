package flow

import (
	"fmt"
	"slices"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/mcp"
)

// MCP event kinds, CrewAI's names. Their Detail is an mcp.EventDetail.
const (
	MCPConnectionStarted      EventKind = "mcp_connection_started"
	MCPConnectionCompleted    EventKind = "mcp_connection_completed"
	MCPConnectionFailed       EventKind = "mcp_connection_failed"
	MCPToolExecutionStarted   EventKind = "mcp_tool_execution_started"
	MCPToolExecutionCompleted EventKind = "mcp_tool_execution_completed"
	MCPToolExecutionFailed    EventKind = "mcp_tool_execution_failed"
	MCPConfigFetchFailed      EventKind = "mcp_config_fetch_failed"
)

// WithMCP sets the connector that gives agents the tools of their MCP
// servers (their mcps, and those of WithMCPServers), for each execution:
// mcp/client.New(...) in most hosts. Without it, a definition whose agents
// name MCP servers does not compile.
func WithMCP(c mcp.Connector) Option { return func(e *Engine) { e.mcp = c } }

// WithMCPServers gives every agent (agent actions and crew agents, not crew
// managers) these MCP servers besides its own mcps.
func WithMCPServers(servers ...mcp.Server) Option {
	return func(e *Engine) { e.mcpServers = append(e.mcpServers, servers...) }
}

// agentMCPs are the MCP servers of an agent: the engine's, then its own.
func (e *Engine) agentMCPs(a *Agent) []mcp.Server {
	if len(e.mcpServers) == 0 {
		return a.MCPs
	}
	return append(slices.Clip(e.mcpServers), a.MCPs...)
}

// checkAgentMCP reports an agent with MCP servers and no connector, or a
// server a Go host built wrong.
func (e *Engine) checkAgentMCP(a *Agent, where string) error {
	servers := e.agentMCPs(a)
	if len(servers) == 0 {
		return nil
	}
	if e.mcp == nil {
		return fmt.Errorf("%s: mcps needs an MCP client: give the engine one with flow.WithMCP(client.New(client.Options{})) (package mcp/client)", where)
	}
	for i, s := range servers {
		if err := s.Validate(fmt.Sprintf("mcps[%d]", i)).Err(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// withMCP gives spec the agent's MCP servers as a toolset.
func (e *Engine) withMCP(spec *action.AgentSpec, a *Agent) {
	if servers := e.agentMCPs(a); len(servers) > 0 && e.mcp != nil {
		spec.Toolsets = append(spec.Toolsets, mcp.Toolset(e.mcp, servers))
	}
}

// mcpData is the mcps list as data, for writing a definition out.
func mcpData(servers []mcp.Server) []any {
	out := make([]any, len(servers))
	for i, s := range servers {
		out[i] = s.Data()
	}
	return out
}

// checkCrewMCP reports a crew with MCP servers and no connector.
func (e *Engine) checkCrewMCP(c *Crew) error {
	if len(c.MCPs) > 0 && e.mcp == nil {
		return fmt.Errorf("crew action: mcps needs an MCP client: give the engine one with flow.WithMCP(client.New(client.Options{})) (package mcp/client)")
	}
	return nil
}

// withCrewMCP gives a crew agent's spec the crew's MCP servers.
func (e *Engine) withCrewMCP(spec *action.AgentSpec, c *Crew) {
	if len(c.MCPs) > 0 && e.mcp != nil {
		spec.Toolsets = append(spec.Toolsets, mcp.Toolset(e.mcp, c.MCPs))
	}
}
