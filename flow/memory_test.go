package flow_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/memory"
	memsqlite "github.com/troupe-dev/troupe/memory/sqlite"
)

const memoryCrewYAML = `
schema: crewai.flow/v1
name: Atlas
methods:
  ask:
    start: true
    do:
      call: crew
      with:
        memory: true
        agents:
          guide: {role: Guide, goal: Answer geography questions, backstory: Remembers what it learns.}
        tasks:
          - {description: "{question}", expected_output: One sentence., agent: guide}
      inputs:
        question: "${state.question}"
`

func openMemory(t *testing.T, path string) *memory.Memory {
	t.Helper()
	store, err := memsqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	m, err := memory.New(store)
	require.NoError(t, err)
	return m
}

func TestCrewRemembersAcrossRuns(t *testing.T) {
	def := mustParse(t, memoryCrewYAML)
	path := filepath.Join(t.TempDir(), "memory.db")

	first := fake.New(fake.Reply{Match: "Learn", Text: "Noted: the capital of Atlantis is Poseidonia."})
	eng := flow.NewEngine(flow.WithLLM(first), flow.WithMemory(openMemory(t, path)))
	_, err := eng.Run(context.Background(), def, map[string]any{"question": "Learn this: the capital of Atlantis is Poseidonia."})
	require.NoError(t, err)

	// A new process: the same file, a fresh memory and engine. The model
	// only knows the answer if the recalled fact is in its prompt.
	second := fake.New(
		fake.Reply{Match: `(?s)capital of Atlantis\?.*Relevant memories:.*Poseidonia`, Text: "Poseidonia."},
		fake.Reply{Text: "I do not know."},
	)
	eng2 := flow.NewEngine(flow.WithLLM(second), flow.WithMemory(openMemory(t, path)))
	res, err := eng2.Run(context.Background(), def, map[string]any{"question": "What is the capital of Atlantis?"})
	require.NoError(t, err)
	assert.Equal(t, "Poseidonia.", res.Outputs["ask"].(map[string]any)["raw"])
	require.Len(t, second.Requests(), 1)
}

func TestMemoryIsOffUnlessConfigured(t *testing.T) {
	def := mustParse(t, strings.Replace(memoryCrewYAML, "memory: true", "process: sequential", 1))
	m := fake.New(fake.Reply{Text: "ok"})
	eng := flow.NewEngine(flow.WithLLM(m))
	_, err := eng.Run(context.Background(), def, map[string]any{"question": "hi"})
	require.NoError(t, err)
	require.NotEmpty(t, m.Requests())
	for _, req := range m.Requests() {
		for _, msg := range req.Messages {
			assert.NotContains(t, strings.ToLower(msg.Text()), "memor", "no memory block in prompts")
		}
	}
}

func TestCodeHandlersRememberAndRecall(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Notes
config: {memory: {}}
methods:
  write: {start: true, do: {ref: "t:write"}}
  read: {listen: write, do: {ref: "t:read"}}
`)
	eng := flow.NewEngine(
		flow.WithCode("t:write", func(ctx context.Context, in flow.Input) (any, error) {
			_, err := in.Memory.Remember(ctx, memory.Item{Content: "The launch is on Friday.", Scope: "/notes",
				Categories: []string{"plan"}, Importance: memory.Importance(0.9)})
			return nil, err
		}),
		flow.WithCode("t:read", func(ctx context.Context, in flow.Input) (any, error) {
			got, err := in.Memory.Recall(ctx, memory.Query{Text: "when is the launch"})
			if err != nil || len(got) == 0 {
				return nil, err
			}
			return got[0].Record.Content, nil
		}),
	)
	res, err := eng.Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "The launch is on Friday.", res.Output)
}

func TestAgentKnowledgeSourcesReachThePrompt(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Kb
methods:
  answer:
    start: true
    do:
      call: agent
      with:
        role: Support
        goal: Answer from the handbook
        backstory: Reads the handbook.
        knowledge_sources:
          - {text: "Refunds are processed within 5 business days of approval."}
          - {text: "The office cat is called Miso."}
        input: "How long do refunds take?"
`)
	m := fake.New(fake.Reply{Match: "5 business days", Text: "Five business days."})
	res, err := flow.NewEngine(flow.WithLLM(m)).Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "Five business days.", res.Outputs["answer"].(map[string]any)["raw"])
}

func TestConfigMemoryRootScope(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Rooted
config: {memory: {root_scope: /team/support}}
methods:
  write: {start: true, do: {ref: "t:write"}}
`)
	mem, err := memory.New(memory.NewInMemoryStore())
	require.NoError(t, err)
	eng := flow.NewEngine(flow.WithMemory(mem), flow.WithCode("t:write", func(ctx context.Context, in flow.Input) (any, error) {
		assert.Equal(t, "/team/support", in.Memory.Root())
		_, err := in.Memory.Remember(ctx, memory.Item{Content: "VIP customers get a call back.", Scope: "/notes",
			Categories: []string{"policy"}, Importance: memory.Importance(1)})
		return nil, err
	}))
	_, err = eng.Run(context.Background(), def, nil)
	require.NoError(t, err)
	got, err := mem.Sub("/team/support").Recall(context.Background(), memory.Query{Text: "VIP"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "/team/support/notes", got[0].Record.Scope)
}
