package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/memorytest"
	"github.com/troupe-dev/troupe/memory/sqlite"
)

func open(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) memory.Store {
		return open(t, filepath.Join(t.TempDir(), "memory.db"))
	})
}

func TestRecordsSurviveRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	clock := memorytest.NewClock(memorytest.Epoch)
	opts := func() []memory.Option {
		n := 0
		return []memory.Option{memory.WithClock(clock.Now), memory.WithIDs(func() string { n++; return fmt.Sprintf("m%d", n) })}
	}

	s, err := sqlite.Open(path)
	require.NoError(t, err)
	m, err := memory.New(s, opts()...)
	require.NoError(t, err)
	_, err = m.RememberMany(ctx, []memory.Item{
		{Content: "the deploy window is Tuesday night", Scope: "/ops", Categories: []string{"schedule"}, Importance: memory.Importance(0.9), Metadata: map[string]any{"n": 1, "f": 1.0}},
		{Content: "the office coffee machine is broken", Scope: "/office", Categories: []string{}, Importance: memory.Importance(0.1)},
	})
	require.NoError(t, err)
	clock.Advance(memorytest.Days(30))
	_, err = m.Remember(ctx, memory.Item{Content: "deploys need two approvals", Scope: "/ops/rules", Categories: []string{"policy"}, Importance: memory.Importance(0.5)})
	require.NoError(t, err)
	_, err = m.Remember(ctx, memory.Item{Content: "temporary note about deploy", Scope: "/tmp", Categories: []string{}, Importance: memory.Importance(0.5)})
	require.NoError(t, err)
	n, err := m.ForgetScope(ctx, "/tmp")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	before, err := m.Recall(ctx, memory.Query{Text: "when can we deploy"})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s2 := open(t, path)
	require.Equal(t, 3, s2.Len())
	m2, err := memory.New(s2, memory.WithClock(clock.Now))
	require.NoError(t, err)
	after, err := m2.Recall(ctx, memory.Query{Text: "when can we deploy"})
	require.NoError(t, err)
	// Lexical cosines with the query: m1 0.247, m3 0.144, m2 -0.072 (left out).
	// m3 = 0.5·0.144 + 0.3·1 + 0.2·0.5 = 0.472 beats m1 = 0.5·0.247 + 0.3·0.5 + 0.2·0.9 = 0.453.
	assert.Equal(t, []string{"m3", "m1"}, memorytest.MatchIDs(after))
	require.Equal(t, len(before), len(after))
	for i := range before {
		assert.Equal(t, before[i].Record.ID, after[i].Record.ID)
		assert.Equal(t, before[i].Score, after[i].Score, "scores are identical after a restart")
		assert.Equal(t, before[i].Record.Embedding, after[i].Record.Embedding)
	}
	got, err := m2.Get(ctx, "m1")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"n": int64(1), "f": 1.0}, got.Metadata)
	assert.True(t, got.CreatedAt.Equal(memorytest.Epoch))
	scoped, err := m2.Recall(ctx, memory.Query{Text: "deploy", Scope: "/ops"})
	require.NoError(t, err)
	// With "deploy": m1 0.5·0.434 + 0.15 + 0.18 = 0.547, m3 0.5·0.253 + 0.3 + 0.1 = 0.527.
	assert.Equal(t, []string{"m1", "m3"}, memorytest.MatchIDs(scoped))

	// Duplicates are still recognised after the restart.
	saved, err := m2.Remember(ctx, memory.Item{Content: "The deploy window is Tuesday night!", Scope: "/ops"})
	require.NoError(t, err)
	assert.True(t, saved.Duplicate)
	assert.Equal(t, "m1", saved.Record.ID)
}

func TestOpenRejectsBadPaths(t *testing.T) {
	for _, p := range []string{"", "a?b", filepath.Join(t.TempDir(), "missing-dir", "x.db")} {
		_, err := sqlite.Open(p)
		assert.Error(t, err, p)
	}
}

func TestClosedStore(t *testing.T) {
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "memory.db"))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
	_, err = s.Get(context.Background(), "x")
	assert.ErrorIs(t, err, memory.ErrClosed)
}
