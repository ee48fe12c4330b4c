package mcp

import (
	"context"

	"github.com/troupe-dev/troupe/action"
)

// A Connector gives an agent the tools of its MCP servers for one execution.
// Package mcp/client implements it on the official Go SDK.
type Connector interface {
	// Tools connects to req.Servers and returns the tools they offer,
	// named as the model sees them, and a func that releases what it
	// opened (closes sessions, stops stdio servers). release is called
	// once the execution ends, also when Tools fails. Servers that cannot
	// be reached are skipped with an event and a warning, unless they are
	// Required: then Tools fails.
	Tools(ctx context.Context, req Request) (tools []action.Tool, release func(), err error)
}

// A Request asks a [Connector] for the tools of one agent execution.
type Request struct {
	Servers []Server
	// Agent is the agent's role and Task the crew task's name, for events.
	Agent string
	Task  string
	// Taken lists the names of the agent's other tools: the MCP tools'
	// names get a suffix (_2, _3, ...) rather than repeat one.
	Taken []string
}

// Toolset returns the [action.Toolset] that opens servers through c at the
// start of every run of an agent (set it in action.AgentSpec.Toolsets).
func Toolset(c Connector, servers []Server) action.Toolset {
	return toolset{c: c, servers: servers}
}

type toolset struct {
	c       Connector
	servers []Server
}

// OpenTools implements action.Toolset.
func (t toolset) OpenTools(ctx context.Context, req action.ToolsetRequest) ([]action.Tool, func(), error) {
	return t.c.Tools(ctx, Request{Servers: t.servers, Agent: req.Agent, Task: req.Task, Taken: req.Taken})
}
