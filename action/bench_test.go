package action_test

import (
	"testing"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm/fake"
)

func BenchmarkRunAgentWithTool(b *testing.B) {
	m := fake.New(
		fake.Match("Observation|results for", fake.Text("done")),
		fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI"})),
	).WithRecording(false)
	spec := agent(m, searchTool(nil))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := action.RunAgent(b.Context(), spec, action.AgentTask{Input: "Research AI"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInterpolate(b *testing.B) {
	inputs := map[string]any{"topic": "AI agents", "audience": "developers"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := action.Interpolate("Research {topic} for {audience}; keep {\"json\": true} as is", inputs); err != nil {
			b.Fatal(err)
		}
	}
}
