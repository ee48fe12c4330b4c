package fake_test

import (
	"encoding/json"
	"testing"

	"github.com/troupe-dev/troupe/action/fake"
	"github.com/troupe-dev/troupe/llm"
)

func BenchmarkCall(b *testing.B) {
	for _, bc := range []struct {
		name string
		tool *fake.Tool
	}{
		{"any", fake.NewTool(llm.ToolSpec{Name: "t"}, fake.Result("done"))},
		{"args", fake.NewTool(orderSpec,
			fake.MatchArgs(map[string]any{"order_id": "A-1000"}, fake.Result("no")),
			fake.MatchArgs(map[string]any{"order_id": "A-1001"}, fake.Result(map[string]any{"status": "shipped"})))},
		{"pattern", fake.NewTool(orderSpec, fake.Match(`never`, fake.Result("no")), fake.Match(`"A-\d+"`, fake.Result("yes")))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tool := bc.tool.WithRecording(false)
			args := json.RawMessage(`{"order_id": "A-1001"}`)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tool.Call(b.Context(), args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCallParallel(b *testing.B) {
	tool := fake.NewTool(orderSpec, fake.Match(`"A-`, fake.Result("yes"))).WithRecording(false)
	args := json.RawMessage(`{"order_id": "A-1001"}`)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := tool.Call(b.Context(), args); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkParseTools(b *testing.B) {
	data := []byte(script)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fake.ParseTools(data, "tools.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
