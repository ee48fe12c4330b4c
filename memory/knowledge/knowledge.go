// Package knowledge gives agents reference material: texts, files and
// folders cut into overlapping chunks, embedded once (cached by content
// hash), and searched by similarity to add the best chunks to a prompt.
//
//	kb, err := knowledge.New(memory.LexicalEmbedder{})
//	err = kb.Add(ctx, knowledge.Folder("./knowledge"))
//	results, err := kb.Search(ctx, task, 5, 0.1)
//	prompt += knowledge.Format(results)
//
// Start with [Source], [File] and [Folder] (source.go, files.go), then
// [Split] (chunk.go) and the embedding caches (cache.go).
//
// It imports memory and internal packages; it must not import flow or
// action.
package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/troupe-dev/troupe/memory"
)

// A Chunk is one window of a document.
type Chunk struct {
	// ID is a hash of the document name, position and text.
	ID string
	// Document is the name of the document the chunk comes from.
	Document string
	// Index is the chunk's position in its document, from 0.
	Index int
	Text  string
}

// A Result is a chunk found by Search, with its cosine similarity to the query.
type Result struct {
	Chunk Chunk
	Score float64
}

// A Base holds chunks and their vectors. It is safe for concurrent use.
type Base struct {
	embedder  memory.Embedder
	namespace string
	size      int
	overlap   int
	cache     Cache
	onSpend   func(memory.Spend)

	mu     sync.RWMutex
	chunks map[string]Chunk    // by ID
	docs   map[string][]string // document name -> chunk IDs
	index  *memory.Index
	spent  memory.Usage
}

// An Option configures a Base.
type Option func(*Base)

// WithChunking sets the chunk size and overlap, in characters (default
// 4000 and 200).
func WithChunking(size, overlap int) Option {
	return func(b *Base) { b.size, b.overlap = size, overlap }
}

// WithCache sets where vectors are cached (default a new MemoryCache).
// Share one cache, such as a FileCache, between bases and runs to embed
// each chunk once.
func WithCache(c Cache) Option { return func(b *Base) { b.cache = c } }

// WithCacheNamespace sets the embedder's part of cache keys. The default
// is the embedder's ID method when it has one (LexicalEmbedder and the
// OpenAI embedder do), else its Go type; set it when two differently
// configured embedders of one type share a cache.
func WithCacheNamespace(ns string) Option { return func(b *Base) { b.namespace = ns } }

// WithSpendObserver sets a function called after every embedder call that
// reported a cost.
func WithSpendObserver(fn func(memory.Spend)) Option { return func(b *Base) { b.onSpend = fn } }

// New returns an empty Base embedding with e.
func New(e memory.Embedder, opts ...Option) (*Base, error) {
	if e == nil {
		return nil, errors.New("knowledge: embedder is nil")
	}
	b := &Base{
		embedder: e, size: DefaultChunkSize, overlap: DefaultChunkOverlap,
		chunks: map[string]Chunk{}, docs: map[string][]string{}, index: memory.NewIndex(),
	}
	for _, o := range opts {
		o(b)
	}
	if _, err := Split("", b.size, b.overlap); err != nil {
		return nil, err
	}
	if b.cache == nil {
		b.cache = NewMemoryCache()
	}
	if b.namespace == "" {
		if id, ok := e.(interface{ ID() string }); ok {
			b.namespace = id.ID()
		} else {
			b.namespace = fmt.Sprintf("%T", e)
		}
	}
	return b, nil
}

// Add loads, chunks and embeds the sources' documents. A document added
// again (by name) replaces its earlier chunks. Chunks found in the cache
// are not embedded again; the others go to the embedder in one call.
func (b *Base) Add(ctx context.Context, sources ...Source) error {
	var docs []Document
	for _, s := range sources {
		d, err := s.Documents(ctx)
		if err != nil {
			return err
		}
		docs = append(docs, d...)
	}
	var chunks []Chunk
	for _, d := range docs {
		parts, err := Split(d.Text, b.size, b.overlap)
		if err != nil {
			return err
		}
		for i, p := range parts {
			chunks = append(chunks, Chunk{ID: hash(d.Name, strconv.Itoa(i), p), Document: d.Name, Index: i, Text: p})
		}
	}
	vecs, err := b.vectors(ctx, chunks)
	if err != nil {
		return err
	}
	entries := make([]memory.IndexEntry, len(chunks))
	for i, c := range chunks {
		entries[i] = memory.IndexEntry{ID: c.ID, Scope: "/", Vector: vecs[i]}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.index.CheckDim(vecs...); err != nil {
		return fmt.Errorf("knowledge: %w", err)
	}
	for _, d := range docs {
		b.index.Remove(b.docs[d.Name]...)
		for _, id := range b.docs[d.Name] {
			delete(b.chunks, id)
		}
		delete(b.docs, d.Name)
	}
	if err := b.index.Upsert(entries...); err != nil {
		return fmt.Errorf("knowledge: %w", err)
	}
	for _, c := range chunks {
		b.chunks[c.ID] = c
		b.docs[c.Document] = append(b.docs[c.Document], c.ID)
	}
	return nil
}

// vectors returns the chunks' vectors from the cache, embedding the
// missing ones in one call and caching them.
func (b *Base) vectors(ctx context.Context, chunks []Chunk) ([][]float32, error) {
	vecs := make([][]float32, len(chunks))
	var missing []int
	var texts []string
	keys := make([]string, len(chunks))
	for i, c := range chunks {
		keys[i] = hash(b.namespace, c.Text)
		if v, ok := b.cache.Get(keys[i]); ok {
			vecs[i] = v
			continue
		}
		missing = append(missing, i)
		texts = append(texts, c.Text)
	}
	if len(texts) == 0 {
		return vecs, nil
	}
	got, err := b.embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	for j, i := range missing {
		vecs[i] = got[j]
		if err := b.cache.Put(keys[i], got[j]); err != nil {
			return nil, err
		}
	}
	return vecs, nil
}

func (b *Base) embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, usage, err := b.embedder.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	if !usage.IsZero() {
		b.mu.Lock()
		b.spent = b.spent.Add(usage)
		b.mu.Unlock()
		if b.onSpend != nil {
			b.onSpend(memory.Spend{Kind: memory.SpendEmbed, Usage: usage, Err: err})
		}
	}
	if err != nil {
		return nil, fmt.Errorf("knowledge: embed: %w", err)
	}
	return vecs, nil
}

// Search returns up to limit chunks whose cosine similarity to query is at
// least threshold, best first (ties by chunk ID). Lexical similarities of
// a short query against a long chunk are small: with LexicalEmbedder use a
// low threshold such as 0.05.
func (b *Base) Search(ctx context.Context, query string, limit int, threshold float64) ([]Result, error) {
	if limit <= 0 {
		return nil, nil
	}
	vecs, err := b.embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	hits, err := b.index.Search(memory.SearchRequest{Vector: vecs[0], MinSimilarity: threshold, Filter: memory.Filter{Limit: limit}})
	if err != nil {
		return nil, fmt.Errorf("knowledge: search: %w", err)
	}
	out := make([]Result, len(hits))
	for i, h := range hits {
		out[i] = Result{Chunk: b.chunks[h.ID], Score: h.Score}
	}
	return out, nil
}

// Len reports the number of chunks.
func (b *Base) Len() int { return b.index.Len() }

// Usage returns what the Base's embedder calls have cost.
func (b *Base) Usage() memory.Usage {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.spent
}

func hash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
