package jsondata_test

import (
	"testing"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// state is a run state of the size a typical flow keeps.
var state = map[string]any{
	"id":     "3f1c2a9e-0000-4000-8000-000000000001",
	"topic":  "AI agents",
	"count":  int64(4),
	"score":  0.75,
	"tags":   []any{"go", "flows", "agents"},
	"draft":  map[string]any{"title": "Agents in Go", "words": int64(1200), "ok": true},
	"review": nil,
}

func BenchmarkMarshal(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		var err error
		if buf, err = jsondata.Append(buf[:0], state); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	raw, err := jsondata.Marshal(state)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsondata.Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClone(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsondata.CloneMap(state); err != nil {
			b.Fatal(err)
		}
	}
}
