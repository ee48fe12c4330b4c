package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
)

func TestLexicalEmbedderIsDeterministicAndNormalised(t *testing.T) {
	e := memory.LexicalEmbedder{}
	vecs, usage, err := e.Embed(context.Background(), []string{"The quick brown fox", "The quick brown fox", "", "!!!"})
	require.NoError(t, err)
	assert.Zero(t, usage)
	require.Len(t, vecs, 4)
	assert.Len(t, vecs[0], memory.DefaultLexicalDims)
	assert.Equal(t, vecs[0], vecs[1])
	assert.InDelta(t, 1, memory.Cosine(vecs[0], vecs[0]), 1e-6)
	norm := 0.0
	for _, f := range vecs[0] {
		norm += float64(f) * float64(f)
	}
	assert.InDelta(t, 1, norm, 1e-5)
	assert.Equal(t, make([]float32, memory.DefaultLexicalDims), vecs[2], "no words: zero vector")
	assert.Equal(t, vecs[2], vecs[3])
	// A pinned value guards against accidental changes to the hashing,
	// which would silently change every stored vector's meaning.
	assert.Equal(t, "lexical-fnv1a-512", e.ID())
	assert.InDelta(t, 0.7166, memory.Cosine(e.EmbedText("window seats"), e.EmbedText("alice likes window seats")), 1e-4)
}

func TestLexicalEmbedderSimilarity(t *testing.T) {
	e := memory.LexicalEmbedder{Dims: 256}
	sim := func(a, b string) float64 { return memory.Cosine(e.EmbedText(a), e.EmbedText(b)) }
	assert.Len(t, e.EmbedText("x"), 256)
	assert.InDelta(t, 1, sim("Alice likes TEA.", "alice likes tea"), 1e-6, "case and punctuation do not count")
	assert.Greater(t, sim("deploying the service", "deployed services"), sim("deploying the service", "lunch menu"), "trigrams match word variants")
	assert.Greater(t, sim("Ünïcödé text", "ünïcödé"), 0.5)
	assert.Less(t, sim("car", "automobile"), 0.3, "lexical, not semantic")
}

func TestLexicalEmbedderHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := memory.LexicalEmbedder{}.Embed(ctx, []string{"a"})
	assert.ErrorIs(t, err, context.Canceled)
}
