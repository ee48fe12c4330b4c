package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/troupe-dev/troupe/llm"
)

func BenchmarkCollectToolCalls(b *testing.B) {
	cs := []llm.Chunk{
		{TextDelta: "Let me "}, {TextDelta: "search."},
		delta(0, "call_1", "search", `{"query":`), delta(0, "", "", `"AI agents"}`),
		delta(1, "call_2", "lookup", `{"id":`), delta(1, "", "", `7}`),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := llm.Collect(chunks(nil, cs...)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMessageText(b *testing.B) {
	m := llm.User("What is the weather in Paris?")
	b.ReportAllocs()
	for b.Loop() {
		if m.Text() == "" {
			b.Fatal("empty")
		}
	}
}

func BenchmarkRequestClone(b *testing.B) {
	req := &llm.Request{Model: "gpt-4o", Messages: []llm.Message{
		llm.System("You are a researcher."), llm.User("Research AI agents"),
		llm.AssistantToolCalls("", llm.ToolCall{ID: "call_1", Name: "search", Arguments: json.RawMessage(`{"query":"AI"}`)}),
		llm.ToolResult("call_1", "search", "results"),
	}, Tools: []llm.ToolSpec{{Name: "search"}}}
	b.ReportAllocs()
	for b.Loop() {
		_ = req.Clone()
	}
}

func BenchmarkParseModel(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if p, _ := llm.ParseModel("claude-3-5-sonnet"); p != "anthropic" {
			b.Fatal(p)
		}
	}
}
