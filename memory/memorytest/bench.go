package memorytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupe-dev/troupe/memory"
)

// Corpus returns n deterministic pseudo-English sentences of 8 to 24 words
// drawn with Zipf frequencies from a vocabulary of 5000 made-up words, for
// filling stores in benchmarks.
func Corpus(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	vocab := vocabulary(rng, 5000)
	zipf := rand.NewZipf(rng, 1.07, 2, uint64(len(vocab)-1))
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		words := 8 + rng.IntN(17)
		for w := range words {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[zipf.Uint64()])
		}
		b.WriteByte('.')
		out[i] = b.String()
	}
	return out
}

func vocabulary(rng *rand.Rand, n int) []string {
	syllables := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ber", "dan", "gor", "hel", "jun", "mar", "pol", "qua", "ster", "tron", "wil", "zen"}
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for len(out) < n {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// Fill puts n corpus records, embedded with e, into s, in batches of 1000,
// spread over 90 days before Epoch and over 10 scopes /bench/s0 ... /bench/s9.
func Fill(tb testing.TB, s memory.Store, e memory.Embedder, n int) {
	tb.Helper()
	ctx := context.Background()
	texts := Corpus(n, 1)
	const batch = 1000
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		vecs, _, err := e.Embed(ctx, texts[lo:hi])
		if err != nil {
			tb.Fatal(err)
		}
		recs := make([]memory.Record, hi-lo)
		for i := range recs {
			k := lo + i
			created := Epoch.Add(-time.Duration(k%(90*24)) * time.Hour)
			recs[i] = memory.Record{
				ID:         fmt.Sprintf("r%07d", k),
				Content:    texts[k],
				Scope:      fmt.Sprintf("/bench/s%d", k%10),
				Categories: []string{fmt.Sprintf("c%d", k%7)},
				Importance: float64(k%11) / 10,
				CreatedAt:  created,
				UpdatedAt:  created,
				Embedding:  vecs[i],
			}
		}
		if err := s.Put(ctx, recs...); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchRecall measures Memory.Recall (top 10, whole store) over s with
// embedder e and reports the median and 99th-percentile latency as
// "p50-ms" and "p99-ms". The store must already be filled.
func BenchRecall(b *testing.B, s memory.Store, e memory.Embedder) {
	b.Helper()
	m, err := memory.New(s, memory.WithEmbedder(e), memory.WithClock(func() time.Time { return Epoch }))
	if err != nil {
		b.Fatal(err)
	}
	queries := Corpus(64, 2)
	for i, q := range queries {
		queries[i] = strings.Join(strings.Fields(q)[:4], " ")
	}
	ctx := context.Background()
	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		got, err := m.Recall(ctx, memory.Query{Text: queries[i%len(queries)], Limit: 10})
		lat = append(lat, time.Since(start))
		if err != nil || len(got) != 10 {
			b.Fatalf("recall: %d results, %v", len(got), err)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, "p99-ms")
}
