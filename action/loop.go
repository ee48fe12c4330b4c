package action

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/schema"
)

// errEmptyReply is the failure of a model that answers with nothing.
var errEmptyReply = errors.New("the model returned an empty reply")

// loop is one agent run: the conversation and what it has spent.
type loop struct {
	spec    *AgentSpec
	task    AgentTask
	em      emitter
	stream  bool
	lim     *rateLimiter
	tb      *toolbox
	native  bool
	maxIter int

	respDoc    map[string]any // JSON Schema of a structured answer, or nil
	respSchema *schema.Schema

	msgs  []llm.Message
	usage llm.Usage
	iter  int
	// turns counts the model calls made so far.
	turns int
}

func newLoop(spec *AgentSpec, task AgentTask, em emitter, stream bool, lim *rateLimiter) (*loop, error) {
	tb, err := newToolbox(spec.Tools, spec.ToolTimeout)
	if err != nil {
		return nil, err
	}
	l := &loop{spec: spec, task: task, em: em, stream: stream, lim: lim, tb: tb, maxIter: spec.MaxIter}
	if l.maxIter <= 0 {
		l.maxIter = DefaultMaxIter
	}
	l.native = len(tb.entries) > 0 && llm.SupportsToolCalls(spec.Model)
	l.respDoc = task.ResponseSchema
	if l.respDoc == nil {
		l.respDoc = spec.ResponseSchema
	}
	if l.respDoc != nil {
		if l.respSchema, err = schema.Compile(l.respDoc); err != nil {
			return nil, fmt.Errorf("response schema: %w", err)
		}
	}
	return l, nil
}

// run plays the conversation to its final answer.
func (l *loop) run(ctx context.Context) (*AgentOutput, error) {
	var memories []string
	if l.spec.Memory != nil {
		m, err := l.recall(ctx)
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		memories = m
	}
	hasTools := len(l.tb.entries) > 0
	l.msgs = append(make([]llm.Message, 0, 8),
		llm.System(systemPrompt(l.spec, !l.native, l.tb.entries)),
		llm.User(taskPrompt(l.task, l.respDoc, memories, !l.native, hasTools)))
	raw, err := l.iterate(ctx)
	if err != nil {
		return nil, err
	}
	out := &AgentOutput{Raw: raw, AgentRole: l.spec.Role}
	if l.respSchema != nil {
		if out.Pydantic, out.Raw, err = l.structured(ctx, raw); err != nil {
			return nil, err
		}
	}
	out.Usage = l.usage
	out.Messages = l.msgs
	out.ToolFailures = l.tb.failures
	out.Iterations = l.iter
	return out, nil
}

// recall asks the agent's memory for what bears on its task, reporting it.
func (l *loop) recall(ctx context.Context) ([]string, error) {
	role, task := l.spec.Role, l.task.Name
	id := l.em.emit(ctx, Event{Kind: EventMemoryRetrievalStarted, Agent: role, Task: task})
	start := l.em.now()
	m, err := l.spec.Memory.Recall(ctx, l.task.Input)
	if err != nil {
		l.em.emit(ctx, Event{Kind: EventMemoryRetrievalFailed, Parent: id, Agent: role, Task: task, Err: err, Duration: l.em.since(start)})
		return nil, err
	}
	l.em.emit(ctx, Event{Kind: EventMemoryRetrievalCompleted, Parent: id, Agent: role, Task: task,
		Result: strings.Join(m, "\n"), Duration: l.em.since(start)})
	return m, nil
}

// iterate runs LLM rounds until the model gives its final answer.
func (l *loop) iterate(ctx context.Context) (string, error) {
	for {
		if l.iter >= l.maxIter || l.tb.repeated() {
			return l.forceFinal(ctx)
		}
		resp, err := l.generate(ctx, l.request(l.native))
		if err != nil {
			if l.native && llm.IsToolsUnsupported(err) {
				l.downgrade()
				continue
			}
			return "", err
		}
		if l.native {
			if calls := resp.ToolCalls(); len(calls) > 0 {
				l.msgs = append(l.msgs, resp.Message)
				answer, ok := l.runCalls(ctx, calls)
				l.iter++
				if ok {
					return answer, nil
				}
				continue
			}
			text := resp.Text()
			if strings.TrimSpace(text) == "" {
				return "", errEmptyReply
			}
			l.msgs = append(l.msgs, resp.Message)
			return text, nil
		}
		text := resp.Text()
		if strings.TrimSpace(text) == "" {
			return "", errEmptyReply
		}
		step := parseReAct(text)
		if len(l.tb.entries) == 0 || step.isFinal {
			l.msgs = append(l.msgs, llm.Assistant(text))
			if len(l.tb.entries) == 0 && !step.isFinal {
				return strings.TrimSpace(text), nil
			}
			return step.final, nil
		}
		call := llm.ToolCall{ID: "react_" + strconv.Itoa(l.iter+1), Name: step.tool, Arguments: step.args}
		res := l.tb.call(ctx, l.em, l.toolCall(call, 1))
		if i := strings.Index(text, "Observation:"); i >= 0 {
			text = strings.TrimRight(text[:i], " \n")
		}
		l.msgs = append(l.msgs, llm.Assistant(text+"\nObservation: "+res.text), llm.User(postToolReminder))
		l.iter++
		if res.answer {
			return res.text, nil
		}
	}
}

// runCalls runs a native round of tool calls, concurrently when no called
// tool's result is the answer, and appends their results in call order. It
// reports the final answer when a result_as_answer tool succeeded.
func (l *loop) runCalls(ctx context.Context, calls []llm.ToolCall) (string, bool) {
	parallel := len(calls) > 1
	for _, c := range calls {
		if e := l.tb.lookup(c.Name); e != nil && e.answer {
			parallel = false
		}
	}
	if !parallel {
		for i, c := range calls {
			res := l.tb.call(ctx, l.em, l.toolCall(c, i+1))
			l.msgs = append(l.msgs, llm.ToolResult(c.ID, c.Name, res.text))
			if res.answer {
				return res.text, true
			}
		}
		return "", false
	}
	round := l.em.round
	if round == nil {
		round = ConcurrentTools
	}
	// The round returns the results by position: a call answered from a
	// record (its tool not run) comes back the same way.
	results := round(ctx, len(calls), func(ctx context.Context, i int) ToolOutcome {
		return ToolOutcome{l.tb.call(ctx, l.em, l.toolCall(calls[i], i+1))}
	})
	if len(results) != len(calls) {
		panic("action: a ToolRound returned " + strconv.Itoa(len(results)) + " results for " + strconv.Itoa(len(calls)) + " calls")
	}
	for i, c := range calls {
		l.msgs = append(l.msgs, llm.ToolResult(c.ID, c.Name, results[i].r.text))
	}
	return "", false
}

// toolCall describes tool call c, at position pos of the latest model
// response.
func (l *loop) toolCall(c llm.ToolCall, pos int) Call {
	return Call{Kind: CallTool, Agent: l.spec.Role, Task: l.task.Name, Name: c.Name, Turn: l.turns, Position: pos, ToolCall: &c}
}

// downgrade switches a run to the ReAct protocol after the provider refused
// native tool calls.
func (l *loop) downgrade() {
	l.native = false
	var b strings.Builder
	b.WriteString("Native tool calls are not available with this model; use the tools through text instead.")
	writeReActInstructions(&b, l.tb.entries)
	l.msgs = append(l.msgs, llm.User(b.String()))
}

// forceFinal asks for the final answer without tools once the agent is out
// of rounds or repeats itself.
func (l *loop) forceFinal(ctx context.Context) (string, error) {
	l.msgs = append(l.msgs, llm.User(forceFinalAnswer))
	resp, err := l.generate(ctx, l.request(false))
	if err != nil {
		return "", err
	}
	text := resp.Text()
	l.msgs = append(l.msgs, llm.Assistant(text))
	if i := strings.LastIndex(text, finalAnswerMarker); i >= 0 {
		text = trimFence(strings.TrimSpace(text[i+len(finalAnswerMarker):]))
	}
	if strings.TrimSpace(text) == "" {
		return "", errEmptyReply
	}
	return text, nil
}

// request builds the next request; tools says whether the model may call
// native tools. In native mode the tools stay declared (with tool choice
// none) when it may not, since providers want the tools of earlier calls.
func (l *loop) request(tools bool) *llm.Request {
	req := &llm.Request{Messages: l.msgs, Temperature: l.spec.Temperature, MaxTokens: l.spec.MaxTokens}
	switch {
	case l.native:
		req.Tools = l.tb.specs
		if !tools {
			req.ToolChoice = llm.ToolChoiceNone
		}
	case len(l.tb.entries) > 0:
		req.Stop = []string{reactStop}
	}
	if l.respDoc != nil && len(l.tb.entries) == 0 {
		req.ResponseSchema = &llm.ResponseSchema{Name: "answer", Schema: l.respDoc}
	}
	return req
}

// generate makes one LLM call, rate limited, reported, counted and passed
// through the host's interceptor.
func (l *loop) generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if err := l.lim.wait(ctx); err != nil {
		return nil, err
	}
	l.turns++
	role, task := l.spec.Role, l.task.Name
	id := l.em.emit(ctx, Event{Kind: EventLLMStarted, Agent: role, Task: task, Model: l.spec.ModelName, Iteration: l.iter,
		Detail: l.modelCall(req, nil)})
	start := l.em.now()
	call := Call{Kind: CallModel, Agent: role, Task: task, Name: l.spec.ModelName, Turn: l.turns, Request: req, Stream: l.stream}
	resp, replayed, err := l.em.interceptedModel(withParent(ctx, id), call, func(ctx context.Context) (*llm.Response, error) {
		if l.stream {
			return llm.Collect(l.chunks(ctx, l.spec.Model.Stream(ctx, req)))
		}
		return l.spec.Model.Generate(ctx, req)
	})
	if err == nil && resp == nil {
		err = errEmptyReply
	}
	if err != nil {
		l.em.emit(ctx, Event{Kind: EventLLMFailed, Parent: id, Agent: role, Task: task, Model: l.spec.ModelName, Err: err, Duration: l.em.since(start), Iteration: l.iter,
			Detail: l.modelCall(req, nil)})
		return nil, err
	}
	l.usage.Add(resp.Usage)
	model := resp.Model
	if model == "" {
		model = l.spec.ModelName
	}
	l.em.emit(ctx, Event{Kind: EventLLMCompleted, Parent: id, Agent: role, Task: task, Model: model, Usage: resp.Usage, Duration: l.em.since(start), Iteration: l.iter,
		Replayed: replayed, Detail: l.modelCall(req, resp)})
	return resp, nil
}

// chunks passes a stream through, reporting its text deltas.
func (l *loop) chunks(ctx context.Context, seq iter.Seq2[llm.Chunk, error]) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		for c, err := range seq {
			if err == nil && c.TextDelta != "" {
				l.em.emit(ctx, Event{Kind: EventLLMChunk, Agent: l.spec.Role, Task: l.task.Name, TextDelta: c.TextDelta, Iteration: l.iter})
			}
			if !yield(c, err) {
				return
			}
		}
	}
}
