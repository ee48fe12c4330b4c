// Package client connects agents to MCP servers with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): a [Connector] implements
// mcp.Connector over stdio, streamable HTTP and SSE.
//
// For each agent execution the connector opens one session per server
// configuration (or, with [PerConnector], keeps sessions until Close),
// lists the server's tools (every page; cached per configuration and
// refreshed when the server sends tools/list_changed), and returns them as
// action tools named as CrewAI names them. A tool call goes to the server
// under the tool's original name, after its arguments are checked against
// the tool's input schema; calls are retried only when the tool says it is
// read-only or idempotent, or the server's entry sets retry_calls.
//
// Connecting, listing and calling report CrewAI's MCP events (the
// action.EventMCP* kinds, with an mcp.EventDetail) into the agent's run.
// A server that cannot be reached is skipped with an mcp_connection_failed
// event and a warning, unless its entry is required.
//
// Stdio servers get only HOME, LOGNAME, PATH, SHELL, TERM and USER from
// the environment plus their env, and their stderr goes to the logger.
// Closing a stdio session closes the server's stdin, waits, then sends
// SIGTERM and finally SIGKILL.
//
// This package is the only one that links the SDK; flow and action do not.
//
// Start with [Connector] (connector.go), then session.go and tool.go.
//
// It imports mcp, action, llm, schema and the MCP SDK; it must not import
// flow.
package client
