package client

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/mcp"
)

// A CallError reports a tool call that failed on the way (the transport, or
// a protocol error from the server) rather than in the tool. The model sees
// it as the call's observation, in CrewAI's words.
type CallError struct {
	// Server is the server's name (command line or host); Tool the tool's
	// name on the server.
	Server, Tool string
	Err          error
}

// Error implements error.
func (e *CallError) Error() string {
	return fmt.Sprintf("mcp: server %s: Error executing MCP tool %s: %v", e.Server, e.Tool, e.Err)
}

// Unwrap returns the cause.
func (e *CallError) Unwrap() error { return e.Err }

// A ToolError reports a call the server answered with an error result
// (isError): the tool ran and failed. The model sees the result's text.
type ToolError struct {
	Server, Tool string
	// Text is the result's text, as the model sees it.
	Text string
}

// Error implements error.
func (e *ToolError) Error() string {
	return fmt.Sprintf("mcp: server %s: tool %s reported an error: %s", e.Server, e.Tool, e.Text)
}

// Reason implements action.ReportedFailure: mcp_error.
func (e *ToolError) Reason() string { return action.FailureMCPError }

// Observation implements action.ReportedFailure: the result's text.
func (e *ToolError) Observation() string {
	if strings.TrimSpace(e.Text) == "" {
		return fmt.Sprintf("Error: the MCP tool %s reported an error without a message.", e.Tool)
	}
	return e.Text
}

// errorType classifies a connection failure as CrewAI's events do:
// timeout, authentication, cancelled or network.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return mcp.ErrorCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return mcp.ErrorTimeout
	case isAuthentication(err):
		return mcp.ErrorAuthentication
	}
	return mcp.ErrorNetwork
}

// callErrorType classifies a failed tool call: timeout, or server_error.
func callErrorType(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return mcp.ErrorTimeout
	}
	return mcp.ErrorServer
}

// isAuthentication reports an HTTP 401 or 403, which the SDK reports by
// their status text.
func isAuthentication(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "unauthorized") || strings.Contains(s, "forbidden")
}

// retryConnect reports whether connecting or listing again may help: not
// after the caller gave up, a refused login or a missing command.
func retryConnect(err error) bool {
	return !errors.Is(err, context.Canceled) && !isAuthentication(err) && !errors.Is(err, exec.ErrNotFound) &&
		!errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, ErrClosed) &&
		!errors.Is(err, errSessionClosed)
}

// retryCall reports whether calling a retryable tool again may help: after
// a timeout or a broken connection, not after the server answered with a
// protocol error.
func retryCall(err error) bool {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return false
	}
	return retryConnect(err) || errors.Is(err, sdk.ErrConnectionClosed)
}

// retry runs fn up to attempts times while it fails with an error again
// says may pass, waiting Backoff, then twice as long, and so on. It stops
// when ctx ends and returns the last error.
func (c *Connector) retry(ctx context.Context, attempts int, again func(error) bool, fn func(context.Context) error) error {
	wait := c.opts.Backoff
	var err error
	for i := range attempts {
		if err = fn(ctx); err == nil {
			return nil
		}
		if i == attempts-1 || ctx.Err() != nil || !again(err) {
			break
		}
		c.logger.Debug("mcp: retrying after "+err.Error(), "attempt", i+2)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait *= 2
	}
	return err
}
