package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/schema"
)

// A Tool is one tool of an MCP server, as an agent calls it: named for the
// model, called on the server under its original name.
type Tool struct {
	sess     *session
	srv      mcp.Server
	who      who
	spec     llm.ToolSpec
	original string
	schema   *schema.Schema // nil when the input schema cannot be checked here
	retry    bool
}

// tools makes the tools of one server entry out of its tool list.
func (c *Connector) tools(sess *session, srv mcp.Server, list []*sdk.Tool, names *mcp.Names, w who) []action.Tool {
	prefix := srv.ToolPrefix()
	var out []action.Tool
	for _, t := range list {
		if !srv.Keeps(t.Name) {
			continue
		}
		desc := t.Description
		if desc == "" {
			desc = fmt.Sprintf("Tool %s from %s", t.Name, srv.Name())
		}
		tool := &Tool{sess: sess, srv: srv, who: w, original: t.Name, retry: srv.RetryCalls,
			spec: llm.ToolSpec{Name: names.Unique(mcp.ToolName(prefix, t.Name)), Description: desc, Parameters: parameters(t.InputSchema)}}
		if a := t.Annotations; a != nil && (a.ReadOnlyHint || a.IdempotentHint) {
			tool.retry = true
		}
		var err error
		if tool.schema, err = schema.Compile(tool.spec.Parameters); err != nil {
			c.logger.Warn(fmt.Sprintf("mcp: tool %s of %s: its input schema cannot be checked here (%v); arguments go to the server unchecked", t.Name, srv.Name(), err))
		}
		out = append(out, tool)
	}
	switch {
	case len(out) == 0 && srv.Tool != "":
		c.logger.Warn(fmt.Sprintf("Specific tool '%s' not found on MCP server: %s", srv.Tool, srv.Name()))
	case len(out) == 0:
		c.logger.Warn("No tools discovered from MCP server: " + srv.Name())
	}
	return out
}

// parameters is a tool's input schema as JSON data: an object schema, with
// "type": "object" and "properties" added when the server left them out.
func parameters(in any) map[string]any {
	m, ok := in.(map[string]any)
	if ok {
		m = maps.Clone(m) // the cached list is shared by executions
	} else {
		var err error
		if m, err = asMap(in); err != nil || m == nil {
			m = map[string]any{}
		}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok && m["type"] == "object" {
		m["properties"] = map[string]any{}
	}
	return m
}

func asMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(b, &m)
	return m, err
}

// Spec implements action.Tool.
func (t *Tool) Spec() llm.ToolSpec { return t.spec }

// Original is the tool's name on its server.
func (t *Tool) Original() string { return t.original }

// Server is the entry the tool comes from.
func (t *Tool) Server() mcp.Server { return t.srv }

// Retryable reports whether a failed call is tried again: the tool says it
// is read-only or idempotent, or the entry sets retry_calls.
func (t *Tool) Retryable() bool { return t.retry }

// CallTimeout implements action.TimedTool: the tool bounds each attempt by
// the entry's call_timeout itself, so the agent sets no bound of its own.
func (t *Tool) CallTimeout() time.Duration { return -1 }

// ChecksArguments implements action.ArgumentChecker.
func (t *Tool) ChecksArguments() {}

// Call implements action.Tool: it drops null arguments, checks the rest
// against the input schema (an *action.ArgumentError, and no call, when
// they do not fit) and calls the tool on the server, reporting
// mcp_tool_execution_* events. An error result is a *ToolError, a failed
// call a *CallError, a call that ran out of time an *action.ToolTimeoutError.
func (t *Tool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	args, text, err := t.arguments(raw)
	if err != nil {
		return nil, &action.ArgumentError{Tool: t.spec.Name, Err: err}
	}
	c := t.sess.c
	_, _, timeout := t.srv.Timeouts()
	d := t.srv.Detail()
	d.ToolName, d.ToolArgs = t.original, text
	start := time.Now()
	ev := action.Event{Agent: t.who.agent, Task: t.who.task, Tool: t.spec.Name, Arguments: text}
	ev.Kind, ev.Detail = action.EventMCPToolExecutionStarted, d
	id := action.Report(ctx, ev)
	attempts := 1
	if t.retry {
		attempts = c.opts.Attempts
	}
	var res *sdk.CallToolResult
	err = c.retry(ctx, attempts, retryCall, func(ctx context.Context) error {
		cs, err := t.sess.get(ctx, t.who)
		if err != nil {
			return err
		}
		cctx, cancel := context.WithTimeoutCause(ctx, timeout, &action.ToolTimeoutError{Tool: t.spec.Name, After: timeout})
		defer cancel()
		res, err = cs.CallTool(cctx, &sdk.CallToolParams{Name: t.original, Arguments: args})
		if err != nil && cctx.Err() != nil && ctx.Err() == nil {
			err = context.Cause(cctx)
		}
		if errors.Is(err, sdk.ErrConnectionClosed) {
			t.sess.dead(cs)
		}
		return err
	})
	ev.Parent, ev.Duration = id, time.Since(start)
	if err != nil {
		d.Error, d.ErrorType = err.Error(), callErrorType(err)
		ev.Kind, ev.Err, ev.Detail = action.EventMCPToolExecutionFailed, err, d
		action.Report(ctx, ev)
		var te *action.ToolTimeoutError
		if errors.As(err, &te) || ctx.Err() != nil {
			return nil, err
		}
		return nil, &CallError{Server: t.srv.Name(), Tool: t.original, Err: err}
	}
	out := resultText(res)
	if res.IsError {
		terr := &ToolError{Server: t.srv.Name(), Tool: t.original, Text: out}
		d.Error, d.ErrorType = out, mcp.ErrorTool
		ev.Kind, ev.Err, ev.Detail = action.EventMCPToolExecutionFailed, terr, d
		action.Report(ctx, ev)
		return nil, terr
	}
	end := time.Now()
	d.Result, d.StartedAt, d.CompletedAt = out, start, end
	d.ExecutionDurationMS = float64(end.Sub(start).Microseconds()) / 1000
	ev.Kind, ev.Result, ev.Detail = action.EventMCPToolExecutionCompleted, out, d
	action.Report(ctx, ev)
	return out, nil
}

// arguments decodes the model's arguments, drops those that are null (as
// CrewAI does) and checks the rest against the input schema. It returns
// them as data and as the JSON text sent.
func (t *Tool) arguments(raw json.RawMessage) (map[string]any, json.RawMessage, error) {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	v, err := schema.DecodeJSON(raw)
	if err != nil {
		return nil, nil, err
	}
	args, ok := v.(map[string]any)
	if !ok && v != nil {
		return nil, nil, fmt.Errorf("arguments must be a JSON object, got %s", raw)
	}
	if args == nil {
		args = map[string]any{}
	}
	for k, v := range args {
		if v == nil {
			delete(args, k)
		}
	}
	if t.schema != nil {
		if err := t.schema.Validate(args); err != nil {
			return nil, nil, err
		}
	}
	text, err := json.Marshal(args)
	if err != nil {
		return nil, nil, err
	}
	return args, text, nil
}
