// Package mcp describes the Model Context Protocol servers an agent uses:
// the entries of an agent's `mcps:` list in CrewAI's forms (an https URL, a
// CrewAI AMP slug, or a map for a stdio, streamable HTTP or SSE server),
// their validation with CrewAI's messages, tool filters, and the names the
// model sees for a server's tools (CrewAI's prefixes, sanitising and
// 64-character rule).
//
// It also defines the seam between agents and an MCP client: a [Connector]
// opens an agent's servers for one execution and returns their tools, and
// [Toolset] hands a connector to the agent loop. The client itself, built
// on the official Go SDK, lives in package mcp/client, so that flow and
// action never link the SDK.
//
// This package imports action (for tools and events) and nothing of the
// engine; it must not import flow or the SDK.
//
// Start with [Server] and its parsing (server.go, parse.go), then
// [Connector] (connector.go), which mcp/client implements.
//
// It imports action and internal packages; it must not import flow or the
// MCP SDK (mcp/client holds it).
package mcp
