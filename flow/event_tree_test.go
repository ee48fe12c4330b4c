package flow_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

// collectEvents returns an engine option that records every event, and the
// recorded events by sequence number.
func collectEvents() (flow.Option, func() map[int64]flow.Event) {
	var mu sync.Mutex
	events := map[int64]flow.Event{}
	return flow.WithEvents(func(ev flow.Event) {
			mu.Lock()
			events[ev.Seq] = ev
			mu.Unlock()
		}), func() map[int64]flow.Event {
			mu.Lock()
			defer mu.Unlock()
			return events
		}
}

// parentKind returns the kind of ev's parent, failing when it has none.
func parentKind(t *testing.T, events map[int64]flow.Event, ev flow.Event) flow.EventKind {
	t.Helper()
	p, ok := events[ev.Parent]
	require.True(t, ok, "%s (seq %d) points at %d, which is no event of the run", ev.Kind, ev.Seq, ev.Parent)
	return p.Kind
}

func TestAgentEventsFormATree(t *testing.T) {
	opt, events := collectEvents()
	model := fake.New(fake.Reply{Match: "shipped", Text: "Done."},
		fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{"id": 5}`}}})
	lookup := action.MustNewTool("lookup", "Look up an order.", func(_ context.Context, in struct {
		ID int `json:"id"`
	}) (string, error) {
		return "shipped", nil
	})
	_, err := flow.NewEngine(opt, flow.WithLLM(model), flow.WithTools(lookup)).
		Run(context.Background(), mustParse(t, lookupAgentFlow), nil)
	require.NoError(t, err)

	want := map[flow.EventKind]flow.EventKind{
		flow.AgentStarted:  flow.MethodStarted,
		flow.AgentFinished: flow.AgentStarted,
		flow.LLMStarted:    flow.AgentStarted,
		flow.LLMFinished:   flow.LLMStarted,
		flow.ToolStarted:   flow.AgentStarted,
		flow.ToolFinished:  flow.ToolStarted,
	}
	seen := map[flow.EventKind]bool{}
	for _, ev := range events() {
		parent, ok := want[ev.Kind]
		if !ok {
			continue
		}
		seen[ev.Kind] = true
		assert.Equal(t, parent, parentKind(t, events(), ev), "parent of %s", ev.Kind)
	}
	assert.Len(t, seen, len(want), "every kind of agent event was seen")
}

func TestCrewEventsFormATree(t *testing.T) {
	opt, events := collectEvents()
	def := mustParse(t, `
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
        tasks:
          - {name: draft, description: Write a line., expected_output: A line., agent: writer, guardrail: "Must be polite."}
`)
	model := fake.New(
		fake.Reply{Match: "Must be polite", JSON: map[string]any{"valid": true}},
		fake.Reply{Text: "Hello, kind reader."},
	)
	_, err := flow.NewEngine(opt, flow.WithLLM(model)).Run(context.Background(), def, nil)
	require.NoError(t, err)

	kinds := map[flow.EventKind][]flow.EventKind{}
	for _, ev := range events() {
		switch ev.Kind {
		case flow.TaskStarted, flow.GuardrailStarted, flow.AgentStarted, flow.LLMStarted:
			kinds[ev.Kind] = append(kinds[ev.Kind], parentKind(t, events(), ev))
		}
	}
	assert.Equal(t, []flow.EventKind{flow.MethodStarted}, kinds[flow.TaskStarted])
	assert.Equal(t, []flow.EventKind{flow.TaskStarted}, kinds[flow.GuardrailStarted])
	// The writer runs under its task, the guardrail's judge under the
	// guardrail.
	assert.ElementsMatch(t, []flow.EventKind{flow.TaskStarted, flow.GuardrailStarted}, kinds[flow.AgentStarted])
	assert.Equal(t, []flow.EventKind{flow.AgentStarted, flow.AgentStarted}, kinds[flow.LLMStarted])
}

// TestAgentEventKindsKeepTheirNames checks that the events agents and
// crews report keep their names in the run's events.
func TestAgentEventKindsKeepTheirNames(t *testing.T) {
	pairs := map[action.EventKind]flow.EventKind{
		action.EventAgentStarted: flow.AgentStarted, action.EventAgentCompleted: flow.AgentFinished,
		action.EventAgentError: flow.AgentFailed, action.EventLLMStarted: flow.LLMStarted,
		action.EventLLMCompleted: flow.LLMFinished, action.EventLLMFailed: flow.LLMFailed,
		action.EventLLMChunk: flow.LLMStream, action.EventToolStarted: flow.ToolStarted,
		action.EventToolFinished: flow.ToolFinished, action.EventToolError: flow.ToolFailed,
		action.EventTaskStarted: flow.TaskStarted, action.EventTaskCompleted: flow.TaskCompleted,
		action.EventGuardrailStarted: flow.GuardrailStarted, action.EventGuardrailCompleted: flow.GuardrailCompleted,
	}
	for a, f := range pairs {
		assert.Equal(t, string(a), string(f))
	}
}
