package mcp

import (
	"encoding/json"
	"time"
)

// Error types of mcp_connection_failed, mcp_tool_execution_failed and
// mcp_config_fetch_failed events, as CrewAI names them.
const (
	ErrorTimeout        = "timeout"
	ErrorAuthentication = "authentication"
	ErrorNetwork        = "network"
	ErrorCancelled      = "cancelled"
	ErrorTool           = "tool_error"
	ErrorServer         = "server_error"
	ErrorNotConnected   = "not_connected"
)

// An EventDetail is the Detail of an MCP event (the action.EventMCP*
// kinds), with the fields of CrewAI's MCP events; those that do not apply
// to a kind are zero and left out of its JSON.
type EventDetail struct {
	// ServerName is the command and arguments joined by spaces (stdio),
	// the URL's host (HTTP, SSE) or the slug (AMP).
	ServerName string `json:"server_name"`
	ServerURL  string `json:"server_url,omitempty"`
	// TransportType is stdio, streamable-http, http, sse or amp.
	TransportType string `json:"transport_type"`

	// ConnectTimeout (seconds) and IsReconnect describe a connection.
	ConnectTimeout float64 `json:"connect_timeout,omitempty"`
	IsReconnect    bool    `json:"is_reconnect,omitempty"`

	// ToolName is the tool's name on the server; ToolArgs its arguments.
	ToolName string          `json:"tool_name,omitempty"`
	ToolArgs json.RawMessage `json:"tool_args,omitempty"`
	// Result is a completed tool call's result text.
	Result string `json:"result,omitempty"`

	StartedAt   time.Time `json:"started_at,omitzero"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
	// ConnectionDurationMS and ExecutionDurationMS are in milliseconds.
	ConnectionDurationMS float64 `json:"connection_duration_ms,omitempty"`
	ExecutionDurationMS  float64 `json:"execution_duration_ms,omitempty"`

	// Error and ErrorType describe a failure (see the Error* constants).
	Error     string `json:"error,omitempty"`
	ErrorType string `json:"error_type,omitempty"`

	// Slug names the AMP integration of mcp_config_fetch_failed.
	Slug string `json:"slug,omitempty"`
}

// Detail returns the EventDetail fields every event of the server carries.
func (s Server) Detail() EventDetail {
	d := EventDetail{ServerName: s.Name(), TransportType: s.TransportType()}
	if s.Kind() != TransportStdio {
		d.ServerURL = s.URL
	}
	return d
}
