package telemetry

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/mcp"
)

// A step is a started event of a run: its span (nil without a tracer)
// and what its closing event needs.
type step struct {
	span  trace.Span
	kind  flow.EventKind
	start time.Time
	// ended is set once the span ended; alias marks an agent's step that
	// shares its crew task's span.
	ended, alias bool
	// Model calls: the request's provider and model, the first streamed
	// chunk, and the streamed text when content is captured.
	provider, model string
	firstChunk      time.Time
	text            strings.Builder
}

// runSpans is what a Telemetry keeps of one run while it goes.
type runSpans struct {
	steps       map[int64]*step
	invocations map[string]int
}

func newRunSpans() *runSpans {
	return &runSpans{steps: map[int64]*step{}, invocations: map[string]int{}}
}

// record turns ev into spans and metrics and reports whether it ended the
// run.
func (t *Telemetry) record(rs *runSpans, ev flow.Event) bool {
	switch ev.Kind {
	case flow.FlowStarted:
		st := t.open(rs, ev, "invoke_workflow "+ev.Flow, trace.SpanKindInternal,
			opName("invoke_workflow"), attribute.String("gen_ai.workflow.name", ev.Flow),
			attribute.String("gen_ai.conversation.id", ev.RunID), attribute.String("troupe.run.id", ev.RunID))
		t.content(st, "troupe.flow.inputs", ev.Inputs)
	case flow.FlowFinished, flow.FlowFailed, flow.FlowPaused:
		t.endRun(rs, ev)
		return true
	case flow.MethodStarted:
		rs.invocations[ev.Method]++
		t.open(rs, ev, "method "+ev.Method, trace.SpanKindInternal,
			attribute.String("troupe.method.name", ev.Method),
			attribute.Int("troupe.method.invocation", rs.invocations[ev.Method]))
	case flow.MethodFinished, flow.MethodFailed, flow.MethodPaused:
		st := rs.steps[ev.Parent]
		if st == nil {
			return false
		}
		status := statusOf(ev.Kind)
		if st.span != nil {
			st.span.SetAttributes(attribute.String("troupe.method.status", status))
			if ev.Outcome != "" {
				st.span.SetAttributes(attribute.String("troupe.router.outcome", ev.Outcome))
			}
			if ev.Kind == flow.MethodFinished {
				t.content(st, "troupe.method.output", ev.Output)
			}
		}
		t.metrics.method(ev, status)
		t.close(st, ev)
	case flow.TaskStarted:
		t.open(rs, ev, "invoke_agent "+ev.Agent, trace.SpanKindInternal, opName("invoke_agent"),
			attribute.String("gen_ai.agent.name", ev.Agent), attribute.String("troupe.task.name", ev.Task))
	case flow.AgentStarted:
		if p := rs.steps[ev.Parent]; p != nil && p.kind == flow.TaskStarted {
			rs.steps[ev.Seq] = &step{span: p.span, kind: flow.AgentStarted, start: ev.Time, alias: true}
			return false
		}
		t.open(rs, ev, "invoke_agent "+ev.Agent, trace.SpanKindInternal, opName("invoke_agent"),
			attribute.String("gen_ai.agent.name", ev.Agent))
	case flow.LLMStarted:
		t.startChat(rs, ev)
	case flow.LLMStream:
		if st := rs.steps[ev.Parent]; st != nil && st.kind == flow.LLMStarted {
			if st.firstChunk.IsZero() {
				st.firstChunk = ev.Time
			}
			if t.opts.CaptureContent {
				st.text.WriteString(ev.Text)
			}
		}
	case flow.LLMFinished, flow.LLMFailed:
		t.endChat(rs, ev)
	case flow.ToolStarted:
		st := t.open(rs, ev, "execute_tool "+ev.Tool, trace.SpanKindInternal, opName("execute_tool"),
			attribute.String("gen_ai.tool.name", ev.Tool), attribute.String("gen_ai.tool.type", "function"))
		if st.span != nil && ev.CallID != "" {
			st.span.SetAttributes(attribute.String("gen_ai.tool.call.id", ev.CallID))
		}
		t.content(st, "gen_ai.tool.call.arguments", string(ev.Arguments))
	case flow.ToolFinished, flow.ToolFailed:
		if st := rs.steps[ev.Parent]; st != nil {
			if ev.Kind == flow.ToolFinished {
				t.content(st, "gen_ai.tool.call.result", ev.Text)
			}
			t.close(st, ev)
		}
	case flow.AgentFinished, flow.AgentFailed, flow.TaskCompleted, flow.GuardrailCompleted:
		if st := rs.steps[ev.Parent]; st != nil {
			if u := ev.Usage; !u.IsZero() && st.span != nil && !st.alias {
				st.span.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
					attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens))
			}
			if ev.Err != nil && st.alias && st.span != nil {
				// The task's span ends when the run does; its agent's
				// failure is its failure.
				st.span.SetStatus(codes.Error, ev.Err.Error())
				st.span.SetAttributes(attribute.String("error.type", errorType(ev.Err)))
			}
			t.close(st, ev)
		}
	case flow.MemoryRetrievalStarted:
		t.open(rs, ev, "retrieval memory", trace.SpanKindClient, opName("retrieval"),
			attribute.String("gen_ai.data_source.id", "memory"), attribute.String("gen_ai.agent.name", ev.Agent))
	case flow.MemoryRetrievalCompleted, flow.MemoryRetrievalFailed:
		if st := rs.steps[ev.Parent]; st != nil {
			if ev.Kind == flow.MemoryRetrievalCompleted {
				t.content(st, "gen_ai.retrieval.documents", ev.Text)
			}
			t.close(st, ev)
		}
	case flow.GuardrailStarted:
		t.open(rs, ev, "guardrail "+ev.Agent, trace.SpanKindInternal,
			attribute.String("gen_ai.agent.name", ev.Agent), attribute.String("troupe.task.name", ev.Task))
	default:
		t.other(rs, ev)
	}
	return false
}

// statusOf is the status a closing event of a method or run reports.
func statusOf(kind flow.EventKind) string {
	switch kind {
	case flow.MethodFailed, flow.FlowFailed:
		return "failed"
	case flow.MethodPaused, flow.FlowPaused:
		return "paused"
	}
	return "completed"
}

// opName is the gen_ai.operation.name attribute.
func opName(op string) attribute.KeyValue { return attribute.String("gen_ai.operation.name", op) }

// open starts the span of a started event under its parent's span.
func (t *Telemetry) open(rs *runSpans, ev flow.Event, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) *step {
	st := &step{kind: ev.Kind, start: ev.Time}
	rs.steps[ev.Seq] = st
	if t.tracer == nil {
		return st
	}
	ctx := context.Background()
	if p := rs.steps[ev.Parent]; p != nil && p.span != nil {
		ctx = trace.ContextWithSpan(ctx, p.span)
	}
	_, st.span = t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithTimestamp(ev.Time), trace.WithAttributes(attrs...))
	return st
}

// close ends st's span at ev, with ev's error as its status.
func (t *Telemetry) close(st *step, ev flow.Event) {
	if st.ended || st.alias {
		return
	}
	st.ended = true
	if st.span == nil {
		return
	}
	if ev.Err != nil {
		st.span.SetStatus(codes.Error, ev.Err.Error())
		st.span.SetAttributes(attribute.String("error.type", errorType(ev.Err)))
	}
	st.span.End(trace.WithTimestamp(ev.Time))
}

// endRun ends the run's span and every span the run left open (a step
// that failed without a closing event), and records the run's metrics.
func (t *Telemetry) endRun(rs *runSpans, ev flow.Event) {
	status := statusOf(ev.Kind)
	t.metrics.run(ev, status)
	root := rs.steps[ev.Parent]
	for seq, st := range rs.steps {
		if st != root && !st.ended && !st.alias && st.span != nil {
			st.span.SetStatus(codes.Error, "the run ended before this step did")
			st.span.End(trace.WithTimestamp(ev.Time))
			st.ended = true
		}
		delete(rs.steps, seq)
	}
	if root == nil || root.span == nil {
		return
	}
	root.span.SetAttributes(attribute.String("troupe.run.status", status))
	if ev.Result != nil {
		u := ev.Result.Usage
		root.span.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
			attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens))
	}
	t.close(root, ev)
}

// startChat opens a model call's span.
func (t *Telemetry) startChat(rs *runSpans, ev flow.Event) {
	provider, model := llm.ParseModel(ev.Model)
	mc, _ := ev.Detail.(*action.ModelCall)
	if mc != nil && mc.Provider != "" {
		provider = mc.Provider
	}
	attrs := []attribute.KeyValue{opName("chat"), attribute.String("gen_ai.provider.name", provider),
		attribute.String("gen_ai.request.model", model)}
	if !t.latest {
		attrs = append(attrs, attribute.String("gen_ai.system", provider))
	}
	if mc != nil {
		if mc.Temperature != nil {
			attrs = append(attrs, attribute.Float64("gen_ai.request.temperature", *mc.Temperature))
		}
		if mc.TopP != nil {
			attrs = append(attrs, attribute.Float64("gen_ai.request.top_p", *mc.TopP))
		}
		if mc.MaxTokens > 0 {
			attrs = append(attrs, attribute.Int("gen_ai.request.max_tokens", mc.MaxTokens))
		}
		attrs = append(attrs, attribute.Bool("gen_ai.request.stream", mc.Stream))
	}
	st := t.open(rs, ev, strings.TrimSpace("chat "+model), trace.SpanKindClient, attrs...)
	st.provider, st.model = provider, model
}

// endChat closes a model call's span with what the response said, and
// records the gen_ai.client.* metrics.
func (t *Telemetry) endChat(rs *runSpans, ev flow.Event) {
	st := rs.steps[ev.Parent]
	if st == nil {
		return
	}
	mc, _ := ev.Detail.(*action.ModelCall)
	respModel := ""
	if mc != nil {
		respModel = mc.ResponseModel
	}
	var ttfc time.Duration
	if !st.firstChunk.IsZero() {
		ttfc = st.firstChunk.Sub(st.start)
	}
	t.metrics.chat(st, ev, respModel, ttfc)
	if st.span != nil {
		u := ev.Usage
		attrs := []attribute.KeyValue{}
		if ev.Kind == flow.LLMFinished {
			attrs = append(attrs, attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
				attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens))
			if u.CachedInputTokens > 0 {
				attrs = append(attrs, attribute.Int64("gen_ai.usage.cache_read.input_tokens", u.CachedInputTokens))
			}
			if u.CacheCreationTokens > 0 {
				attrs = append(attrs, attribute.Int64("gen_ai.usage.cache_creation.input_tokens", u.CacheCreationTokens))
			}
			if u.ReasoningTokens > 0 {
				attrs = append(attrs, attribute.Int64("gen_ai.usage.reasoning.output_tokens", u.ReasoningTokens))
			}
		}
		if mc != nil {
			if mc.ResponseID != "" {
				attrs = append(attrs, attribute.String("gen_ai.response.id", mc.ResponseID))
			}
			if mc.ResponseModel != "" {
				attrs = append(attrs, attribute.String("gen_ai.response.model", mc.ResponseModel))
			}
			if mc.FinishReason != "" {
				attrs = append(attrs, attribute.StringSlice("gen_ai.response.finish_reasons", []string{mc.FinishReason}))
			}
		}
		if ttfc > 0 {
			attrs = append(attrs, attribute.Float64("gen_ai.response.time_to_first_chunk", seconds(ttfc)))
		}
		st.span.SetAttributes(attrs...)
		if t.opts.CaptureContent {
			text := st.text.String()
			if text == "" && mc != nil && mc.Response != nil {
				text = mc.Response.Text()
			}
			if text != "" {
				t.content(st, "gen_ai.output.messages", outputMessages(text, mc))
			}
			if mc != nil && mc.Request != nil {
				t.content(st, "gen_ai.input.messages", inputMessages(mc.Request))
			}
		}
	}
	t.close(st, ev)
}

// other records the events that open no span of their own: MCP tool
// executions mark their tool's span, the rest become span events.
func (t *Telemetry) other(rs *runSpans, ev flow.Event) {
	p := rs.steps[ev.Parent]
	if p == nil || p.span == nil {
		return
	}
	if d, ok := ev.Detail.(mcp.EventDetail); ok && strings.HasPrefix(string(ev.Kind), "mcp_tool_execution") {
		p.span.SetAttributes(attribute.String("gen_ai.tool.type", "extension"),
			attribute.String("mcp.method.name", "tools/call"),
			attribute.String("troupe.mcp.server.name", d.ServerName),
			attribute.String("network.transport", d.TransportType))
		return
	}
	attrs := []attribute.KeyValue{}
	if ev.Skill != nil {
		attrs = append(attrs, attribute.String("troupe.skill.name", ev.Skill.Name))
	}
	if ev.Err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(ev.Err)))
	}
	p.span.AddEvent(string(ev.Kind), trace.WithTimestamp(ev.Time), trace.WithAttributes(attrs...))
}
