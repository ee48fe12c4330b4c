package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/providers"
)

// These tests run flows against loopback servers that speak the OpenAI and
// Anthropic wire formats, configured only through the environment as a
// user would, and check what went over the wire.

// wire is one provider: its server and the environment that points troupe
// at it.
type wire struct {
	name  string
	start func(t *testing.T) (llmtest.Server, map[string]string)
	model string // as the server receives it
	// key is the API key every request carries ("": none).
	key string
}

var wires = []wire{
	{
		name: "openai",
		start: func(t *testing.T) (llmtest.Server, map[string]string) {
			srv := llmtest.NewOpenAIServer(t)
			return srv, map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test-openai"}
		},
		model: "gpt-4o-mini", key: "sk-test-openai",
	},
	{
		// A local OpenAI-compatible server (Ollama, vLLM, llama.cpp): no key.
		name: "openai-compatible, local, no key",
		start: func(t *testing.T) (llmtest.Server, map[string]string) {
			srv := llmtest.NewOpenAIServer(t)
			return srv, map[string]string{"OPENAI_BASE_URL": srv.URL(), "TROUPE_MODEL": "openai/Qwen/Qwen2.5-7B-Instruct"}
		},
		model: "Qwen/Qwen2.5-7B-Instruct",
	},
	{
		name: "anthropic",
		start: func(t *testing.T) (llmtest.Server, map[string]string) {
			srv := llmtest.NewAnthropicServer(t)
			return srv, map[string]string{"ANTHROPIC_BASE_URL": srv.URL(), "ANTHROPIC_API_KEY": "sk-test-anthropic",
				"TROUPE_MODEL": "anthropic/claude-sonnet-4-5"}
		},
		model: "claude-sonnet-4-5", key: "sk-test-anthropic",
	},
}

// setEnv sets env for the test (the process environment, as troupe reads
// it).
func setEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// lookup returns env as a lookup function for providers.Default.
func lookup(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// transcript is every text of a request, in order.
func transcript(req *llm.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Text())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestRunResearchReviewAgainstServers(t *testing.T) {
	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "research_review", "flow.yaml"))
	require.NoError(t, err)
	const (
		research = "1. Orchestrators route work; tradeoff: more moving parts."
		review   = "Sound brief; the tradeoff needs a decision. needs_followup: true"
		note     = "Decision needed: pick an orchestration policy this quarter."
	)
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			inTempDir(t)
			srv, env := w.start(t)
			setEnv(t, env)
			srv.Push(llmtest.Reply{Text: research}, llmtest.Reply{Text: review},
				llmtest.Reply{Text: "followup"}, llmtest.Reply{Text: note})

			code, out, errOut := runCLI(t, "run", example, "--inputs", `{"topic": "agent orchestration", "audience": "CTOs"}`)
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, note+"\n", out)

			got := srv.Received()
			require.Len(t, got, 4)
			for i, rec := range got {
				assert.Equal(t, w.model, rec.Request.Model, "request %d", i)
				// As a bearer token, or Anthropic's x-api-key.
				auth := rec.Header.Get("Authorization") + rec.Header.Get("X-Api-Key")
				if w.key == "" {
					assert.Empty(t, auth, "request %d", i)
				} else {
					assert.Contains(t, auth, w.key, "request %d", i)
				}
				assert.False(t, rec.Stream, "request %d: the flow does not stream", i)
			}
			steps := []struct{ who, sees string }{
				{"Research analyst", "agent orchestration for CTOs"},
				{"Strategy reviewer", research}, // the research task's output is the review's context
				{"Follow-up router", review},
				{"Executive communications specialist", research},
			}
			for i, s := range steps {
				text := transcript(got[i].Request)
				assert.Contains(t, text, s.who, "request %d", i)
				assert.Contains(t, text, s.sees, "request %d", i)
			}
		})
	}
}

// An agent with response_schema asks the provider for structured output,
// and the next method reads the parsed answer.
func TestRunStructuredOutputAgainstServers(t *testing.T) {
	path, err := filepath.Abs(filepath.Join("testdata", "structured.yaml"))
	require.NoError(t, err)
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			inTempDir(t)
			srv, env := w.start(t)
			setEnv(t, env)
			srv.Push(llmtest.Reply{Text: `{"category": "billing", "urgent": true}`})

			code, out, errOut := runCLI(t, "run", path, "--json")
			require.Equal(t, exitOK, code, errOut)
			var res struct {
				Result  string
				Outputs struct{ Classify map[string]any }
			}
			require.NoError(t, json.Unmarshal([]byte(out), &res), out)
			assert.Equal(t, "billing (urgent)", res.Result)
			assert.Equal(t, map[string]any{"category": "billing", "urgent": true}, res.Outputs.Classify["pydantic"])

			got := srv.Received()
			require.Len(t, got, 1)
			rs := got[0].Request.ResponseSchema
			require.NotNil(t, rs, "structured output was not requested")
			props, _ := rs.Schema["properties"].(map[string]any)
			assert.Contains(t, props, "category")
			assert.Contains(t, props, "urgent")
			assert.ElementsMatch(t, []any{"category", "urgent"}, rs.Schema["required"])
		})
	}
}

type orderQuery struct {
	OrderID string `json:"order_id" jsonschema:"description=The order number"`
}

// Tools need Go registration, so the tool round trip runs the engine as a
// Go host would, with the providers troupe run configures.
func TestToolRoundTripAgainstServers(t *testing.T) {
	def, err := flow.Load(filepath.Join("testdata", "tools.yaml"))
	require.NoError(t, err)
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv, env := w.start(t)
			var asked []string
			tool := action.MustNewTool("lookup_order", "Look an order up.", func(_ context.Context, q orderQuery) (map[string]any, error) {
				asked = append(asked, q.OrderID)
				return map[string]any{"order_id": q.OrderID, "status": "held at customs"}, nil
			})
			srv.Push(
				llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "lookup_order", Arguments: json.RawMessage(`{"order_id":"A-1001"}`)}}},
				llmtest.Reply{Text: "Order A-1001 is held at customs."},
			)
			eng := flow.NewEngine(flow.WithModels(providers.Default(lookup(env))),
				flow.WithDefaultModel(modelFor(env)), flow.WithTools(tool))
			res, err := eng.Run(context.Background(), def, nil)
			require.NoError(t, err)
			assert.Equal(t, "Order A-1001 is held at customs.", fmt.Sprint(res.Output))
			assert.Equal(t, []string{"A-1001"}, asked)

			got := srv.Received()
			require.Len(t, got, 2)
			// The tool is declared, with the schema reflected from orderQuery.
			require.Len(t, got[0].Request.Tools, 1)
			spec := got[0].Request.Tools[0]
			assert.Equal(t, "lookup_order", spec.Name)
			props, _ := spec.Parameters["properties"].(map[string]any)
			assert.Contains(t, props, "order_id")
			// The call and its result go back to the model.
			var call, result bool
			for _, m := range got[1].Request.Messages {
				for _, c := range m.ToolCalls {
					call = call || c.ID == "call_1" && c.Name == "lookup_order"
				}
				if m.ToolCallID == "call_1" {
					result = true
					assert.Contains(t, m.Text(), "held at customs")
				}
			}
			assert.True(t, call, "the assistant's tool call was not sent back")
			assert.True(t, result, "the tool result was not sent back")
		})
	}
}

// modelFor is the default model troupe run picks in env.
func modelFor(env map[string]string) string {
	if m := providers.DefaultModel(lookup(env)); m != "" {
		return m
	}
	return defaultModel
}

// With config.stream, model text reaches the event stream while the reply
// is still being produced: the server holds the rest of its reply until
// the first chunk event arrives.
func TestStreamChunksArriveAsEvents(t *testing.T) {
	def, err := flow.Load(filepath.Join("testdata", "stream.yaml"))
	require.NoError(t, err)
	srv := llmtest.NewOpenAIServer(t)
	gate := make(chan struct{})
	srv.Push(llmtest.Reply{Text: "A robot learned to dream, then woke up smiling.", Pieces: 4, Gate: gate})
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test"}

	var (
		once   sync.Once
		events []flow.Event // the sink is called one event at a time
	)
	eng := flow.NewEngine(flow.WithModels(providers.Default(lookup(env))), flow.WithDefaultModel(defaultModel),
		flow.WithEvents(func(ev flow.Event) {
			events = append(events, ev)
			if ev.Kind == flow.LLMStream {
				once.Do(func() { close(gate) })
			}
		}))
	res, err := eng.Run(context.Background(), def, nil)
	require.NoError(t, err)

	var chunks []string
	finished := -1
	for i, ev := range events {
		switch ev.Kind {
		case flow.LLMStream:
			assert.Equal(t, -1, finished, "a chunk arrived after the flow finished")
			assert.Equal(t, "answer", ev.Method)
			chunks = append(chunks, ev.Text)
		case flow.FlowFinished:
			finished = i
		}
	}
	assert.GreaterOrEqual(t, len(chunks), 2)
	assert.NotEqual(t, -1, finished)
	assert.Equal(t, "A robot learned to dream, then woke up smiling.", strings.Join(chunks, ""))
	assert.Contains(t, fmt.Sprint(res.Output), "A robot learned to dream")
	got := srv.Received()
	require.Len(t, got, 1)
	assert.True(t, got[0].Stream, "the model was not asked to stream")
	assert.False(t, got[0].GateTimedOut, "the first chunk did not reach the events before the reply ended")
}

// troupe run prints streamed text live on a terminal's stderr, and keeps
// stdout for the result.
func TestRunPrintsStreamOnTerminal(t *testing.T) {
	path, err := filepath.Abs(filepath.Join("testdata", "stream.yaml"))
	require.NoError(t, err)
	cases := []struct {
		name     string
		terminal bool
	}{
		{name: "terminal", terminal: true},
		{name: "pipe", terminal: false},
	}
	const story = "A robot learned to dream, then woke up smiling."
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inTempDir(t)
			srv := llmtest.NewOpenAIServer(t)
			setEnv(t, map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test"})
			srv.Push(llmtest.Reply{Text: story, Pieces: 4})
			var out, errOut bytes.Buffer
			var stderr io.Writer = &errOut
			if c.terminal {
				stderr = ttyWriter{&errOut}
			}
			// The step lines, not the live view (progress_test.go tests it).
			code := run([]string{"run", path, "--progress=never"}, strings.NewReader(""), &out, stderr)
			require.Equal(t, exitOK, code, errOut.String())
			assert.Equal(t, story+"\n", out.String())
			if c.terminal {
				assert.Contains(t, errOut.String(), "▶ answer\n"+story+"\n✔ answer")
			} else {
				assert.Empty(t, errOut.String())
			}
		})
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := progress(&b)
	for _, ev := range []flow.Event{
		{Kind: flow.MethodStarted, Method: "write"},
		{Kind: flow.LLMStream, Method: "write", Text: "Hel"},
		{Kind: flow.LLMStream, Method: "write", Text: "lo"},
		{Kind: flow.LLMFinished, Method: "write", Text: "Hello"},
		{Kind: flow.MethodFinished, Method: "write"},
		{Kind: flow.MethodStarted, Method: "review"},
		{Kind: flow.MethodPaused, Method: "review"},
	} {
		p(ev)
	}
	assert.Equal(t, "▶ write\nHello\n✔ write (0s)\n▶ review\n⏸ review: waiting for feedback\n", b.String())
}
