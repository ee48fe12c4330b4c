package memory_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/memorytest"
)

// BenchmarkRecall100k recalls the top 10 of 100,000 records in the
// in-memory store with the default lexical embedder.
func BenchmarkRecall100k(b *testing.B) {
	s := memory.NewInMemoryStore()
	defer s.Close()
	e := memory.LexicalEmbedder{}
	memorytest.Fill(b, s, e, 100_000)
	memorytest.BenchRecall(b, s, e)
}

// BenchmarkRecall100kDense is the worst case for the index: dense 512-wide
// vectors such as a semantic embedding model gives.
func BenchmarkRecall100kDense(b *testing.B) {
	s := memory.NewInMemoryStore()
	defer s.Close()
	e := denseEmbedder{dims: 512}
	memorytest.Fill(b, s, e, 100_000)
	memorytest.BenchRecall(b, s, e)
}

// denseEmbedder gives every text a pseudo-random dense vector seeded by
// the text, standing in for a semantic model.
type denseEmbedder struct{ dims int }

func (d denseEmbedder) Embed(_ context.Context, texts []string) ([][]float32, memory.Usage, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		var seed uint64
		for _, c := range []byte(t) {
			seed = seed*131 + uint64(c)
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		v := make([]float32, d.dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		out[i] = v
	}
	return out, memory.Usage{}, nil
}

func BenchmarkLexicalEmbed(b *testing.B) {
	e := memory.LexicalEmbedder{}
	texts := memorytest.Corpus(1, 3)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = e.Embed(ctx, texts)
	}
}

func BenchmarkRemember(b *testing.B) {
	s := memory.NewInMemoryStore()
	defer s.Close()
	m, err := memory.New(s)
	if err != nil {
		b.Fatal(err)
	}
	texts := memorytest.Corpus(200_000, 4)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		item := memory.Item{Content: texts[i%len(texts)], Scope: "/b", Categories: []string{}, Importance: memory.Importance(0.5)}
		if _, err := m.Remember(ctx, item); err != nil {
			b.Fatal(err)
		}
	}
}
