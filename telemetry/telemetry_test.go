package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/telemetry"
)

// spans is what a run left in an in-memory exporter, with lookups.
type spans struct {
	t    *testing.T
	all  tracetest.SpanStubs
	byID map[trace.SpanID]tracetest.SpanStub
}

// traceRun runs def with telemetry configured by opts (its providers
// replaced by in-memory ones) and returns the spans and the run's error.
func traceRun(t *testing.T, def string, opts telemetry.Options, engineOpts ...flow.Option) (*spans, error) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	opts.TracerProvider = tp
	tel, err := telemetry.New(opts)
	require.NoError(t, err)
	d, err := flow.Parse([]byte(def), "flow.yaml")
	require.NoError(t, err)
	_, runErr := flow.NewEngine(append(engineOpts, tel.Option())...).Run(context.Background(), d, nil)
	require.NoError(t, tp.ForceFlush(context.Background()))
	s := &spans{t: t, all: exp.GetSpans(), byID: map[trace.SpanID]tracetest.SpanStub{}}
	for _, sp := range s.all {
		s.byID[sp.SpanContext.SpanID()] = sp
	}
	return s, runErr
}

// named returns the spans called name.
func (s *spans) named(name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, sp := range s.all {
		if sp.Name == name {
			out = append(out, sp)
		}
	}
	return out
}

// one returns the only span called name.
func (s *spans) one(name string) tracetest.SpanStub {
	s.t.Helper()
	got := s.named(name)
	require.Len(s.t, got, 1, "spans named %q among %v", name, s.names())
	return got[0]
}

func (s *spans) names() []string {
	var out []string
	for _, sp := range s.all {
		out = append(out, sp.Name)
	}
	return out
}

// parent returns the name of sp's parent span, "" for a root.
func (s *spans) parent(sp tracetest.SpanStub) string {
	if !sp.Parent.IsValid() {
		return ""
	}
	p, ok := s.byID[sp.Parent.SpanID()]
	require.True(s.t, ok, "the parent of %s is no span of the run", sp.Name)
	return p.Name
}

// path returns the names from sp up to the root, joined by " < ".
func (s *spans) path(sp tracetest.SpanStub) string {
	parts := []string{sp.Name}
	for sp.Parent.IsValid() {
		sp = s.byID[sp.Parent.SpanID()]
		parts = append(parts, sp.Name)
	}
	return strings.Join(parts, " < ")
}

// attrs returns sp's attributes as a map.
func attrs(sp tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range sp.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func lookupTool() action.Tool {
	return action.MustNewTool("lookup", "Look up an order.", func(_ context.Context, in struct {
		ID int `json:"id"`
	}) (string, error) {
		if in.ID == 0 {
			return "", errors.New("no such order")
		}
		return fmt.Sprintf("order %d shipped", in.ID), nil
	})
}

const agentFlow = `
schema: crewai.flow/v1
name: Support
methods:
  answer:
    start: true
    do:
      call: agent
      with: {role: Support, goal: Answer, backstory: Helpful., tools: [lookup], input: "Where is order 5?", llm: openai/gpt-4o-mini}
`

func agentModel() *fake.Model {
	return fake.New(
		fake.Reply{Match: "shipped", Text: "Order 5 shipped.", Usage: &llm.Usage{InputTokens: 120, OutputTokens: 8, CachedInputTokens: 100}},
		fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{"id": 5}`}}, Usage: &llm.Usage{InputTokens: 90, OutputTokens: 12}},
	)
}

func TestSpansOfAnAgentRun(t *testing.T) {
	s, err := traceRun(t, agentFlow, telemetry.Options{Semconv: telemetry.SemconvLatest},
		flow.WithLLM(agentModel()), flow.WithTools(lookupTool()))
	require.NoError(t, err)

	root := s.one("invoke_workflow Support")
	assert.Equal(t, trace.SpanKindInternal, root.SpanKind)
	assert.Equal(t, "", s.parent(root))
	ra := attrs(root)
	assert.Equal(t, "invoke_workflow", ra["gen_ai.operation.name"].AsString())
	assert.Equal(t, "Support", ra["gen_ai.workflow.name"].AsString())
	assert.NotEmpty(t, ra["gen_ai.conversation.id"].AsString())
	assert.Equal(t, "completed", ra["troupe.run.status"].AsString())
	assert.Equal(t, int64(210), ra["gen_ai.usage.input_tokens"].AsInt64())

	method := s.one("method answer")
	assert.Equal(t, trace.SpanKindInternal, method.SpanKind)
	assert.Equal(t, "invoke_workflow Support", s.parent(method))
	ma := attrs(method)
	assert.Equal(t, "answer", ma["troupe.method.name"].AsString())
	assert.Equal(t, int64(1), ma["troupe.method.invocation"].AsInt64())

	agent := s.one("invoke_agent Support")
	assert.Equal(t, "method answer", s.parent(agent))
	assert.Equal(t, "invoke_agent", attrs(agent)["gen_ai.operation.name"].AsString())
	assert.Equal(t, "Support", attrs(agent)["gen_ai.agent.name"].AsString())

	chats := s.named("chat gpt-4o-mini")
	require.Len(t, chats, 2)
	for _, c := range chats {
		assert.Equal(t, trace.SpanKindClient, c.SpanKind)
		assert.Equal(t, "invoke_agent Support", s.parent(c))
		a := attrs(c)
		assert.Equal(t, "chat", a["gen_ai.operation.name"].AsString())
		assert.Equal(t, "openai", a["gen_ai.provider.name"].AsString())
		assert.Equal(t, "gpt-4o-mini", a["gen_ai.request.model"].AsString())
		assert.False(t, a["gen_ai.request.stream"].AsBool())
		_, legacy := a["gen_ai.system"]
		assert.False(t, legacy, "the latest conventions leave out gen_ai.system")
	}
	first, last := attrs(chats[0]), attrs(chats[1])
	assert.Equal(t, int64(90), first["gen_ai.usage.input_tokens"].AsInt64())
	assert.Equal(t, int64(12), first["gen_ai.usage.output_tokens"].AsInt64())
	assert.Equal(t, []string{"tool_calls"}, first["gen_ai.response.finish_reasons"].AsStringSlice())
	assert.Equal(t, int64(100), last["gen_ai.usage.cache_read.input_tokens"].AsInt64())
	assert.Equal(t, []string{"stop"}, last["gen_ai.response.finish_reasons"].AsStringSlice())

	tool := s.one("execute_tool lookup")
	assert.Equal(t, trace.SpanKindInternal, tool.SpanKind)
	assert.Equal(t, "invoke_agent Support", s.parent(tool))
	ta := attrs(tool)
	assert.Equal(t, "execute_tool", ta["gen_ai.operation.name"].AsString())
	assert.Equal(t, "lookup", ta["gen_ai.tool.name"].AsString())
	assert.Equal(t, "function", ta["gen_ai.tool.type"].AsString())
	assert.NotEmpty(t, ta["gen_ai.tool.call.id"].AsString())
	_, captured := ta["gen_ai.tool.call.arguments"]
	assert.False(t, captured, "content is off by default")

	for _, sp := range s.all {
		assert.Equal(t, codes.Unset, sp.Status.Code, sp.Name)
		assert.Equal(t, root.SpanContext.TraceID(), sp.SpanContext.TraceID(), "one trace per run")
		assert.False(t, sp.EndTime.Before(sp.StartTime), sp.Name)
	}
}

func TestDefaultSemconvKeepsGenAISystem(t *testing.T) {
	t.Setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "http,gen_ai_latest_experimental")
	s, err := traceRun(t, agentFlow, telemetry.Options{}, flow.WithLLM(agentModel()), flow.WithTools(lookupTool()))
	require.NoError(t, err)
	_, legacy := attrs(s.named("chat gpt-4o-mini")[0])["gen_ai.system"]
	assert.False(t, legacy, "opted in to the latest conventions through the environment")

	t.Setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "")
	s, err = traceRun(t, agentFlow, telemetry.Options{}, flow.WithLLM(agentModel()), flow.WithTools(lookupTool()))
	require.NoError(t, err)
	a := attrs(s.named("chat gpt-4o-mini")[0])
	assert.Equal(t, "openai", a["gen_ai.system"].AsString())
	assert.Equal(t, "openai", a["gen_ai.provider.name"].AsString())
}

func TestParallelBranchesNestUnderTheirMethods(t *testing.T) {
	def := `
schema: crewai.flow/v1
name: Twins
methods:
  left:
    start: true
    do: {call: agent, with: {role: Lefty, goal: Answer, backstory: Left., input: "left side", llm: openai/gpt-4o}}
  right:
    start: true
    do: {call: agent, with: {role: Righty, goal: Answer, backstory: Right., input: "right side", llm: anthropic/claude-sonnet-4}}
  join:
    listen: {and: [left, right]}
    do: {call: expression, expr: "'done'"}
`
	model := fake.New(fake.Reply{Match: "left side", Text: "L"}, fake.Reply{Match: "right side", Text: "R"})
	s, err := traceRun(t, def, telemetry.Options{}, flow.WithLLM(model))
	require.NoError(t, err)
	assert.Equal(t, "chat gpt-4o < invoke_agent Lefty < method left < invoke_workflow Twins", s.path(s.one("chat gpt-4o")))
	assert.Equal(t, "chat claude-sonnet-4 < invoke_agent Righty < method right < invoke_workflow Twins", s.path(s.one("chat claude-sonnet-4")))
	assert.Equal(t, "anthropic", attrs(s.one("chat claude-sonnet-4"))["gen_ai.provider.name"].AsString())
	assert.Equal(t, "invoke_workflow Twins", s.parent(s.one("method join")))
}

func TestCrewTasksAreAgentSpans(t *testing.T) {
	def := `
schema: crewai.flow/v1
name: Desk
methods:
  write:
    start: true
    do:
      call: crew
      with:
        agents:
          writer: {role: Writer, goal: Write, backstory: Writes.}
          editor: {role: Editor, goal: Edit, backstory: Edits.}
        tasks:
          - {name: draft, description: Write a line., expected_output: A line., agent: writer}
          - {name: polish, description: Polish the line., expected_output: A better line., agent: editor}
`
	model := fake.New(fake.Reply{Match: "Polish", Text: "Hello, dear reader."}, fake.Reply{Text: "Hello reader."})
	s, err := traceRun(t, def, telemetry.Options{}, flow.WithLLM(model))
	require.NoError(t, err)
	writer, editor := s.one("invoke_agent Writer"), s.one("invoke_agent Editor")
	assert.Equal(t, "method write", s.parent(writer))
	assert.Equal(t, "method write", s.parent(editor))
	assert.Equal(t, "draft", attrs(writer)["troupe.task.name"].AsString())
	assert.Equal(t, "polish", attrs(editor)["troupe.task.name"].AsString())
	var chatParents []string
	for _, sp := range s.all {
		if strings.HasPrefix(sp.Name, "chat") {
			chatParents = append(chatParents, s.parent(sp))
		}
	}
	assert.ElementsMatch(t, []string{"invoke_agent Writer", "invoke_agent Editor"}, chatParents,
		"each task's model call is under its task's agent span, with no second agent span")
}

func TestAgentsInsideEachNestUnderTheirMethod(t *testing.T) {
	def := `
schema: crewai.flow/v1
name: Batch
state: {type: dict, default: {items: [a, b, c]}}
methods:
  fan:
    start: true
    do:
      call: each
      in: state.items
      do:
        - {name: ask, action: {call: agent, with: {role: Worker, goal: Work, backstory: Works., input: "item ${item}", llm: openai/gpt-4o}}}
`
	model := fake.New(fake.Reply{Text: "ok"})
	s, err := traceRun(t, def, telemetry.Options{}, flow.WithLLM(model))
	require.NoError(t, err)
	agents := s.named("invoke_agent Worker")
	require.Len(t, agents, 3)
	for _, a := range agents {
		assert.Equal(t, "method fan", s.parent(a))
	}
	for _, c := range s.named("chat gpt-4o") {
		assert.Equal(t, "invoke_agent Worker", s.parent(c))
	}
	assert.Len(t, s.named("chat gpt-4o"), 3)
}

func TestErrorsSetStatusAndErrorType(t *testing.T) {
	model := fake.New(
		fake.Reply{Match: "no such order", Text: "I could not find it."},
		fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{"id": 0}`}}},
	)
	s, err := traceRun(t, agentFlow, telemetry.Options{}, flow.WithLLM(model), flow.WithTools(lookupTool()))
	require.NoError(t, err, "a failing tool call is reported to the model, not the run")
	tool := s.one("execute_tool lookup")
	assert.Equal(t, codes.Error, tool.Status.Code)
	assert.Contains(t, tool.Status.Description, "no such order")
	assert.NotEmpty(t, attrs(tool)["error.type"].AsString())

	failing := `
schema: crewai.flow/v1
name: Broken
methods:
  first:
    start: true
    do: {call: agent, with: {role: Support, goal: Answer, backstory: Helpful., input: "hi", llm: openai/gpt-4o}}
`
	model = fake.New(fake.Reply{Error: "bad request", Status: 400})
	s, err = traceRun(t, failing, telemetry.Options{}, flow.WithLLM(model))
	require.Error(t, err)
	for _, name := range []string{"chat gpt-4o", "invoke_agent Support", "method first", "invoke_workflow Broken"} {
		sp := s.one(name)
		assert.Equal(t, codes.Error, sp.Status.Code, name)
		assert.Equal(t, "*llm.APIError", attrs(sp)["error.type"].AsString(), name)
	}
	assert.Equal(t, "failed", attrs(s.one("invoke_workflow Broken"))["troupe.run.status"].AsString())
}

func TestContentIsOptInAndRedacted(t *testing.T) {
	var keys []string
	redact := func(key, value string) string {
		keys = append(keys, key)
		if key == "gen_ai.input.messages" {
			return "" // dropped
		}
		return strings.ReplaceAll(value, "5", "#")
	}
	s, err := traceRun(t, agentFlow, telemetry.Options{CaptureContent: true, Redact: redact},
		flow.WithLLM(agentModel()), flow.WithTools(lookupTool()))
	require.NoError(t, err)
	ta := attrs(s.one("execute_tool lookup"))
	assert.Equal(t, `{"id": #}`, ta["gen_ai.tool.call.arguments"].AsString())
	assert.Equal(t, "order # shipped", ta["gen_ai.tool.call.result"].AsString())
	last := attrs(s.named("chat gpt-4o-mini")[1])
	assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"text","content":"Order # shipped."}],"finish_reason":"stop"}]`,
		last["gen_ai.output.messages"].AsString())
	_, in := last["gen_ai.input.messages"]
	assert.False(t, in, "the hook dropped the input messages")
	assert.Contains(t, keys, "gen_ai.input.messages")
	assert.Contains(t, attrs(s.one("method answer"))["troupe.method.output"].AsString(), `"raw":"Order # shipped."`)
}

func TestRouterOutcomeAndInvocations(t *testing.T) {
	def := `
schema: crewai.flow/v1
name: Loop
state: {type: dict, default: {n: 0}}
methods:
  step:
    start: true
    do: {call: expression, expr: "state.n + 1"}
  decide:
    listen: {or: [step, retry]}
    router: true
    emit: [again, stop]
    do: {call: expression, expr: "has(outputs.retry) ? 'stop' : 'again'"}
  retry:
    listen: again
    do: {call: expression, expr: "'more'"}
`
	s, err := traceRun(t, def, telemetry.Options{})
	require.NoError(t, err)
	decides := s.named("method decide")
	require.NotEmpty(t, decides)
	var outcomes []string
	for i, d := range decides {
		a := attrs(d)
		assert.Equal(t, int64(i+1), a["troupe.method.invocation"].AsInt64())
		outcomes = append(outcomes, a["troupe.router.outcome"].AsString())
	}
	assert.Equal(t, []string{"again", "stop"}, outcomes)
}

func TestMemoryRecallIsARetrievalSpan(t *testing.T) {
	mem, err := memory.New(memory.NewInMemoryStore())
	require.NoError(t, err)
	def := `
schema: crewai.flow/v1
name: Atlas
methods:
  ask:
    start: true
    do: {call: agent, with: {role: Guide, goal: Answer, backstory: Remembers., memory: true, input: "Where is Atlantis?", llm: openai/gpt-4o}}
`
	model := fake.New(fake.Reply{Text: "Under the sea."})
	s, err := traceRun(t, def, telemetry.Options{CaptureContent: true}, flow.WithLLM(model), flow.WithMemory(mem))
	require.NoError(t, err)
	r := s.one("retrieval memory")
	assert.Equal(t, trace.SpanKindClient, r.SpanKind)
	assert.Equal(t, "invoke_agent Guide", s.parent(r))
	a := attrs(r)
	assert.Equal(t, "retrieval", a["gen_ai.operation.name"].AsString())
	assert.Equal(t, "memory", a["gen_ai.data_source.id"].AsString())
	assert.Equal(t, codes.Unset, r.Status.Code)
}

func TestConcurrentRunsKeepTheirOwnTraces(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tel, err := telemetry.New(telemetry.Options{TracerProvider: tp})
	require.NoError(t, err)
	d, err := flow.Parse([]byte(agentFlow), "flow.yaml")
	require.NoError(t, err)
	p, err := flow.NewEngine(flow.WithLLM(fake.New(fake.Text("ok"))), flow.WithTools(lookupTool()), tel.Option()).Compile(d)
	require.NoError(t, err)
	const runs = 8
	errs := make(chan error, runs)
	for range runs {
		go func() {
			_, err := p.Run(context.Background(), nil)
			errs <- err
		}()
	}
	for range runs {
		require.NoError(t, <-errs)
	}
	s := &spans{t: t, all: exp.GetSpans(), byID: map[trace.SpanID]tracetest.SpanStub{}}
	for _, sp := range s.all {
		s.byID[sp.SpanContext.SpanID()] = sp
	}
	roots := s.named("invoke_workflow Support")
	require.Len(t, roots, runs)
	traces := map[trace.TraceID]bool{}
	for _, r := range roots {
		traces[r.SpanContext.TraceID()] = true
	}
	assert.Len(t, traces, runs, "one trace per run")
	for _, c := range s.named("chat gpt-4o-mini") {
		assert.Equal(t, "chat gpt-4o-mini < invoke_agent Support < method answer < invoke_workflow Support", s.path(c))
		parent := s.byID[c.Parent.SpanID()]
		assert.Equal(t, parent.SpanContext.TraceID(), c.SpanContext.TraceID())
	}
}
