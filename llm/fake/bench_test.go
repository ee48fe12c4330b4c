package fake_test

import (
	"testing"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

func BenchmarkGenerate(b *testing.B) {
	for _, bc := range []struct {
		name  string
		model *fake.Model
	}{
		{"text", fake.New(fake.Text("done"))},
		{"matched", fake.New(fake.Match("never", fake.Text("no")), fake.Match(`(?s)Research.*AI`, fake.Text("yes")))},
		{"tool call", fake.New(fake.ToolCalls(fake.Call("search", map[string]any{"query": "AI"})))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := bc.model.WithRecording(false)
			req := &llm.Request{Messages: []llm.Message{llm.System("You are a researcher."), llm.User("Research AI agents")}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Generate(b.Context(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGenerateParallel(b *testing.B) {
	m := fake.New(fake.Match("AI", fake.Text("yes"))).WithRecording(false)
	req := &llm.Request{Messages: []llm.Message{llm.User("Research AI agents")}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := m.Generate(b.Context(), req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
