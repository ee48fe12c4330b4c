package storetest

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/troupe-dev/troupe/store"
)

// Benchmark measures the operations the engine performs per method: Save
// of a typical snapshot (new runs and overwrites), Load by id, a List of
// the latest 20 runs of a flow, and Save from parallel goroutines. s may
// already hold runs; the benchmark adds its own under the id prefix
// "bench-".
func Benchmark(b *testing.B, s store.Store) {
	ctx := b.Context()
	b.Run("Save", func(b *testing.B) {
		snap := typical("bench-save")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			snap.FlowID = fmt.Sprintf("bench-save-%d", i%100)
			i++
			if err := s.Save(ctx, snap); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Load", func(b *testing.B) {
		if err := s.Save(ctx, typical("bench-load")); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Load(ctx, "bench-load"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("List20", func(b *testing.B) {
		for i := range 50 {
			if err := s.Save(ctx, typical(fmt.Sprintf("bench-list-%d", i))); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			got, err := s.List(ctx, store.Filter{Flow: "Bench", Limit: 20})
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != 20 {
				b.Fatalf("listed %d runs, want 20", len(got))
			}
		}
	})
	b.Run("SaveParallel", func(b *testing.B) {
		var n atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			snap := typical("bench-parallel")
			for pb.Next() {
				snap.FlowID = fmt.Sprintf("bench-parallel-%d", n.Add(1)%100)
				if err := s.Save(ctx, snap); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// typical is a snapshot of the size a research flow writes after a few
// methods.
func typical(id string) *store.Snapshot {
	snap := Snapshot(id, 0)
	snap.Flow = "Bench"
	snap.State = map[string]any{
		"id":       id,
		"topic":    "AI agents in Go",
		"attempts": int64(2),
		"score":    0.82,
		"sources":  []any{"https://example.com/a", "https://example.com/b", "https://example.com/c"},
		"draft": map[string]any{
			"title": "Agents in Go",
			"words": int64(1200),
			"sections": []any{
				map[string]any{"heading": "Why", "done": true},
				map[string]any{"heading": "How", "done": false},
			},
		},
	}
	snap.Outputs = map[string]any{
		"start":    "AI agents in Go",
		"research": map[string]any{"facts": []any{"one", "two", "three"}, "confidence": 0.9},
		"draft":    "A first draft of a few hundred characters about agents written in Go, with a title and two sections.",
	}
	snap.Completed = []string{"start", "research", "draft"}
	return snap
}
