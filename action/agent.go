package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// DefaultMaxIter is the number of LLM rounds an agent gets before it must
// give its final answer, as in CrewAI.
const DefaultMaxIter = 25

// An AgentSpec describes an agent: who it is, the model it thinks with, the
// tools it may use and the limits it runs under. A spec is read, never
// modified, by runs, so one spec may serve concurrent runs.
type AgentSpec struct {
	// Name is the agent's key in a crew (tasks refer to it); optional for a
	// lone agent.
	Name      string
	Role      string
	Goal      string
	Backstory string
	// Model answers the agent's LLM calls. Required.
	Model llm.LLM
	// ModelName names Model in events and for interceptors, such as
	// "openai/gpt-4o-mini"; optional.
	ModelName string
	// Tools are the tools the agent may call. Wrap one with ResultAsAnswer
	// to make its result the final answer.
	Tools []Tool
	// MaxIter bounds the LLM rounds; 0 means DefaultMaxIter.
	MaxIter int
	// MaxRPM limits LLM requests per minute; 0 means no limit.
	MaxRPM int
	// MaxExecutionTime bounds one run; 0 means no bound.
	MaxExecutionTime time.Duration
	// ToolTimeout bounds each tool call of tools that set no timeout of
	// their own ([TimedTool]); 0 means [DefaultToolTimeout], a negative
	// value no bound. The bound reaches the tool through its context; a
	// call that runs out of time is reported to the model as an observation
	// (and as a [*ToolTimeoutError] in the tool_error event), and a tool
	// that ignores its context is left to finish in the background.
	ToolTimeout time.Duration
	// AllowDelegation gives the agent, inside a crew of several agents, the
	// tools to delegate work to and ask questions of its coworkers.
	AllowDelegation bool
	// ResponseSchema, when set, is the JSON Schema of a structured answer
	// (the Troupe extension key response_schema); a task's schema wins.
	ResponseSchema map[string]any
	// Temperature and MaxTokens are passed to the model when set.
	Temperature *float64
	MaxTokens   int
	// Memory, when set, is recalled before the task and told its result.
	Memory Memory
	// SkillPrompt is the skill section of the system prompt, as package
	// skill renders it: it follows the agent's introduction and, for the
	// ReAct protocol, its tools, where CrewAI puts it. "" adds nothing.
	SkillPrompt string
	// Session, when set, opens the state each run of the agent keeps for
	// its tools (see [Session]); nil opens none.
	Session func() Session
	// Toolsets supply tools for each run on top of Tools (the tools of MCP
	// servers); they are opened after agent_execution_started and released
	// when the run ends.
	Toolsets []Toolset
}

// Memory is what an agent needs from a memory store: recall of what is
// relevant to a task, and remembering its outcome.
type Memory interface {
	Recall(ctx context.Context, query string) ([]string, error)
	Remember(ctx context.Context, text string) error
}

// An AgentTask is one piece of work for an agent.
type AgentTask struct {
	// Input is the task text: an agent action's input, or a crew task's
	// description.
	Input string
	// ExpectedOutput describes the wanted answer; optional.
	ExpectedOutput string
	// Context is earlier work the agent should build on; optional.
	Context string
	// ResponseSchema overrides the agent's ResponseSchema.
	ResponseSchema map[string]any
	// Name names the task in events (crews set it).
	Name string
}

// RunOptions are the host's settings for agent and crew runs. A nil
// *RunOptions means no observer, no logging, no streaming.
type RunOptions struct {
	// Observer receives the events of the run.
	Observer Observer
	// Logger, when set, logs every event but stream chunks.
	Logger *slog.Logger
	// Stream calls models through Stream and reports text deltas as
	// llm_stream_chunk events.
	Stream bool
	// Intercept, when set, wraps every model and tool call of the run,
	// streamed model calls included.
	Intercept Interceptor
	// ToolRound, when set, runs the tool calls of each model response
	// instead of the default, which runs them concurrently.
	ToolRound ToolRound
	// Clock, when set, is read for the durations the events record and
	// waited on by the rate limiter; nil is the [SystemClock].
	Clock Clock
}

// A TimeoutError reports an agent run that exceeded its MaxExecutionTime.
type TimeoutError struct {
	Agent string
	After time.Duration
}

// Error implements error.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("action: agent %q: task execution timed out after %s", e.Agent, e.After)
}

// An AgentError reports a failed agent run.
type AgentError struct {
	Agent string
	Err   error
}

// Error implements error.
func (e *AgentError) Error() string { return fmt.Sprintf("action: agent %q: %v", e.Agent, e.Err) }

// Unwrap returns the cause.
func (e *AgentError) Unwrap() error { return e.Err }

// RunAgent runs the agent on the task and returns its final answer.
//
// The agent uses the model's native tool calls when the model supports them
// and the agent has tools, and the ReAct text protocol otherwise (switching
// to it mid-run when the provider says it cannot call tools). Tool problems
// go back to the model as observations; the run fails only when the model
// does, the context ends or MaxExecutionTime passes.
func RunAgent(ctx context.Context, spec *AgentSpec, task AgentTask, opts *RunOptions) (*AgentOutput, error) {
	if spec == nil {
		return nil, errors.New("action: nil agent spec")
	}
	return runAgent(ctx, spec, task, newEmitter(opts), opts != nil && opts.Stream, nil)
}

// runAgent is RunAgent with the emitter, streaming flag and rate limiter a
// crew shares between its tasks (nil limiter: the run makes its own).
func runAgent(ctx context.Context, spec *AgentSpec, task AgentTask, em emitter, stream bool, lim *rateLimiter) (*AgentOutput, error) {
	if spec.Model == nil {
		return nil, &AgentError{Agent: spec.Role, Err: errors.New("no model (set AgentSpec.Model)")}
	}
	if lim == nil && spec.MaxRPM > 0 {
		lim = newRateLimiter(spec.MaxRPM, time.Minute, em.clock)
	}
	r, err := newLoop(spec, task, em, stream, lim)
	if err != nil {
		return nil, &AgentError{Agent: spec.Role, Err: err}
	}
	runCtx := ctx
	if spec.MaxExecutionTime > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, spec.MaxExecutionTime)
		defer cancel()
	}
	start := em.now()
	ctx, runCtx = withEmitter(ctx, em), withEmitter(runCtx, em)
	id := em.emit(ctx, Event{Kind: EventAgentStarted, Agent: spec.Role, Task: task.Name})
	runCtx = withParent(runCtx, id)
	if spec.Session != nil {
		if s := spec.Session(); s != nil {
			r.tb.session = s
			runCtx = context.WithValue(runCtx, sessionKey{}, s)
			s.Start(runCtx, spec.Role, task.Name)
		}
	}
	out, err := r.start(runCtx)
	if err != nil {
		if spec.MaxExecutionTime > 0 && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
			err = &TimeoutError{Agent: spec.Role, After: spec.MaxExecutionTime}
		} else {
			err = &AgentError{Agent: spec.Role, Err: err}
		}
		em.emit(ctx, Event{Kind: EventAgentError, Parent: id, Agent: spec.Role, Task: task.Name, Err: err, Usage: r.usage, Duration: em.since(start)})
		return nil, err
	}
	if spec.Memory != nil {
		if err := spec.Memory.Remember(ctx, "Task: "+task.Input+"\nResult: "+out.Raw); err != nil {
			return nil, &AgentError{Agent: spec.Role, Err: fmt.Errorf("remember: %w", err)}
		}
	}
	em.emit(ctx, Event{Kind: EventAgentCompleted, Parent: id, Agent: spec.Role, Task: task.Name, Result: out.Raw, Usage: out.Usage, Duration: em.since(start)})
	return out, nil
}
