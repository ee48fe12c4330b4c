package knowledge_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/knowledge"
)

// counting wraps an embedder and counts the texts it embeds.
type counting struct {
	memory.Embedder
	texts []string
	cost  memory.Usage
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, memory.Usage, error) {
	c.texts = append(c.texts, texts...)
	v, _, err := c.Embedder.Embed(ctx, texts)
	return v, c.cost, err
}

func (c *counting) ID() string { return "counting" }

func chunkNames(rs []knowledge.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s#%d", r.Chunk.Document, r.Chunk.Index)
	}
	return out
}

func TestSearchRanksChunks(t *testing.T) {
	ctx := context.Background()
	kb, err := knowledge.New(memory.LexicalEmbedder{}, knowledge.WithChunking(40, 0))
	require.NoError(t, err)
	require.NoError(t, kb.Add(ctx,
		knowledge.Text("refunds", "Refunds are paid within 14 days. Refunds need the original receipt."),
		knowledge.Text("shipping", "Shipping takes 3 days within Norway and 7 days abroad."),
		knowledge.Text("empty", "   "),
	))
	assert.Equal(t, 4, kb.Len())

	// Lexical cosines: "how are refunds paid" is 0.72 to refunds#0, under
	// 0.06 to the rest; "original receipt" 0.78 to refunds#1, 0.07 to refunds#0.
	got, err := kb.Search(ctx, "how are refunds paid", 2, 0.1)
	require.NoError(t, err)
	require.Equal(t, []string{"refunds#0"}, chunkNames(got))
	assert.Equal(t, "Refunds are paid within 14 days. Refunds", got[0].Chunk.Text)
	assert.InDelta(t, 0.7175, got[0].Score, 1e-4)

	got, err = kb.Search(ctx, "original receipt", 2, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"refunds#1", "refunds#0"}, chunkNames(got), "limit 2 of 4")

	got, err = kb.Search(ctx, "shipping abroad", 5, 0.1)
	require.NoError(t, err)
	assert.Equal(t, []string{"shipping#1", "shipping#0"}, chunkNames(got), "the threshold drops the refund chunks")

	got, err = kb.Search(ctx, "shipping abroad", 5, 0.99)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Empty(t, knowledge.Format(got))
}

func TestAddEmbedsEachChunkOnce(t *testing.T) {
	ctx := context.Background()
	emb := &counting{Embedder: memory.LexicalEmbedder{}, cost: memory.Usage{InputTokens: 10, Requests: 1}}
	var spends int
	cache := knowledge.NewMemoryCache()
	kb, err := knowledge.New(emb, knowledge.WithChunking(10, 0), knowledge.WithCache(cache), knowledge.WithSpendObserver(func(memory.Spend) { spends++ }))
	require.NoError(t, err)
	doc := knowledge.Text("doc", "aaaaaaaaaabbbbbbbbbb")
	require.NoError(t, kb.Add(ctx, doc))
	require.NoError(t, kb.Add(ctx, doc), "adding again replaces and needs no embedding")
	assert.Equal(t, []string{"aaaaaaaaaa", "bbbbbbbbbb"}, emb.texts)
	assert.Equal(t, 2, kb.Len())

	// A changed document replaces its chunks; only the new text is embedded.
	require.NoError(t, kb.Add(ctx, knowledge.Text("doc", "aaaaaaaaaacccccccccc")))
	assert.Equal(t, []string{"aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"}, emb.texts)
	assert.Equal(t, 2, kb.Len())
	got, err := kb.Search(ctx, "bbbbbbbbbb", 5, 0.5)
	require.NoError(t, err)
	assert.Empty(t, got, "the old chunk is gone")

	// A second base sharing the cache embeds nothing but the query.
	kb2, err := knowledge.New(emb, knowledge.WithChunking(10, 0), knowledge.WithCache(cache))
	require.NoError(t, err)
	require.NoError(t, kb2.Add(ctx, knowledge.Text("other name", "aaaaaaaaaacccccccccc")))
	assert.Len(t, emb.texts, 4) // + the query above
	assert.Equal(t, 3, cache.Len())

	assert.Equal(t, 3, spends) // two Adds that embedded, one query
	assert.Equal(t, memory.Usage{InputTokens: 30, Requests: 3}, kb.Usage())
}

func TestFileCacheOutlivesTheBase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	emb := &counting{Embedder: memory.LexicalEmbedder{}}
	for range 2 {
		cache, err := knowledge.NewFileCache(dir)
		require.NoError(t, err)
		kb, err := knowledge.New(emb, knowledge.WithCache(cache))
		require.NoError(t, err)
		require.NoError(t, kb.Add(ctx, knowledge.Text("t", "the cache keeps this vector")))
		got, err := kb.Search(ctx, "cache vector", 1, 0)
		require.NoError(t, err)
		require.Len(t, got, 1)
	}
	assert.Equal(t, []string{"the cache keeps this vector", "cache vector", "cache vector"}, emb.texts)

	cache, err := knowledge.NewFileCache(dir)
	require.NoError(t, err)
	require.NoError(t, cache.Put("k", []float32{1.5, -2}))
	v, ok := cache.Get("k")
	require.True(t, ok)
	assert.Equal(t, []float32{1.5, -2}, v)
	_, ok = cache.Get("missing")
	assert.False(t, ok)
}

func TestFormat(t *testing.T) {
	got := knowledge.Format([]knowledge.Result{
		{Chunk: knowledge.Chunk{Document: "handbook.md", Text: "  Refunds take 14 days.\n"}, Score: 0.7},
		{Chunk: knowledge.Chunk{Document: "faq.txt", Text: "Ask support."}, Score: 0.4},
	})
	assert.Equal(t, "Reference material that may help (from your knowledge sources):\n"+
		"[1] handbook.md\nRefunds take 14 days.\n"+
		"[2] faq.txt\nAsk support.\n", got)
}

func TestNewRejectsBadOptions(t *testing.T) {
	_, err := knowledge.New(nil)
	assert.Error(t, err)
	_, err = knowledge.New(memory.LexicalEmbedder{}, knowledge.WithChunking(100, 100))
	assert.Error(t, err)
}

func TestAddRejectsMixedDimensions(t *testing.T) {
	ctx := context.Background()
	dims := 2
	emb := memory.EmbedderFunc(func(_ context.Context, texts []string) ([][]float32, memory.Usage, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, dims)
			out[i][0] = 1
		}
		return out, memory.Usage{}, nil
	})
	kb, err := knowledge.New(emb)
	require.NoError(t, err)
	require.NoError(t, kb.Add(ctx, knowledge.Text("a", "alpha")))
	dims = 3
	err = kb.Add(ctx, knowledge.Text("b", "beta"))
	require.ErrorIs(t, err, memory.ErrDimension)
	assert.Equal(t, 1, kb.Len(), "a rejected Add changes nothing")
}
