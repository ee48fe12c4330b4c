package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/memorytest"
	"github.com/troupe-dev/troupe/memory/sqlite"
)

// BenchmarkRecall100k recalls the top 10 of 100,000 records in a SQLite
// store with the default lexical embedder: an index search plus one query
// fetching the ten rows.
func BenchmarkRecall100k(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "memory.db"))
	e := memory.LexicalEmbedder{}
	memorytest.Fill(b, s, e, 100_000)
	memorytest.BenchRecall(b, s, e)
}

// BenchmarkOpen100k measures loading the index of 100,000 records at Open.
func BenchmarkOpen100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "memory.db")
	s := open(b, path)
	memorytest.Fill(b, s, memory.LexicalEmbedder{}, 100_000)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := sqlite.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if s.Len() != 100_000 {
			b.Fatalf("loaded %d records", s.Len())
		}
		s.Close()
	}
}
