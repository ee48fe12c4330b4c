// Package openai is a memory.Embedder for OpenAI's embeddings endpoint and
// the servers that speak it (Ollama, vLLM, LM Studio, LiteLLM, ...), on the
// official openai-go SDK.
//
//	emb, err := openai.New(openai.Config{
//		BaseURL: "http://localhost:11434/v1", // Ollama
//		Model:   "nomic-embed-text",
//	})
//	mem, err := memory.New(store, memory.WithEmbedder(emb))
//
// It imports memory and the OpenAI SDK only; it must not import flow or
// action.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/troupe-dev/troupe/memory"
)

// Config selects the server and model.
type Config struct {
	// BaseURL is the API root, such as "https://api.openai.com/v1" (the
	// default, or $OPENAI_BASE_URL) or "http://localhost:11434/v1".
	BaseURL string
	// APIKey authenticates; empty uses $OPENAI_API_KEY. Local servers
	// usually need none.
	APIKey string
	// Model is the embedding model, such as "text-embedding-3-small". Required.
	Model string
	// Dimensions asks text-embedding-3 and later models for shorter
	// vectors; zero leaves the model's default.
	Dimensions int
	// BatchSize caps the texts sent in one request; zero means 256.
	BatchSize int
	// HTTPClient replaces the SDK's default HTTP client.
	HTTPClient *http.Client
	// Options are passed on to the SDK client (retries, timeouts, headers, ...).
	Options []option.RequestOption
}

// Embedder calls an OpenAI-compatible /embeddings endpoint. It is safe for
// concurrent use.
type Embedder struct {
	client sdk.Client
	cfg    Config
}

var _ memory.Embedder = (*Embedder)(nil)

// New returns an Embedder for cfg.
func New(cfg Config) (*Embedder, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai: Config.Model is empty; name an embedding model such as text-embedding-3-small")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 256
	}
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("openai: Config.Dimensions %d is negative", cfg.Dimensions)
	}
	var opts []option.RequestOption
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	opts = append(opts, cfg.Options...)
	return &Embedder{client: sdk.NewClient(opts...), cfg: cfg}, nil
}

// ID names the embedder's server, model and dimensions; caches key on it.
func (e *Embedder) ID() string {
	return fmt.Sprintf("openai:%s:%s:%d", e.cfg.BaseURL, e.cfg.Model, e.cfg.Dimensions)
}

// Embed implements memory.Embedder, sending at most BatchSize texts per
// request. Usage counts the prompt tokens the server reported and the
// requests sent, including those of a batch that failed part-way.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, memory.Usage, error) {
	out := make([][]float32, 0, len(texts))
	var usage memory.Usage
	for lo := 0; lo < len(texts); lo += e.cfg.BatchSize {
		batch := texts[lo:min(lo+e.cfg.BatchSize, len(texts))]
		vecs, tokens, err := e.embedBatch(ctx, batch)
		usage.Requests++
		usage.InputTokens += tokens
		if err != nil {
			return nil, usage, err
		}
		out = append(out, vecs...)
	}
	return out, usage, nil
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, int64, error) {
	params := sdk.EmbeddingNewParams{
		Model: sdk.EmbeddingModel(e.cfg.Model),
		Input: sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
	}
	if e.cfg.Dimensions > 0 {
		params.Dimensions = sdk.Int(int64(e.cfg.Dimensions))
	}
	res, err := e.client.Embeddings.New(ctx, params)
	if err != nil {
		return nil, 0, fmt.Errorf("openai: embeddings with %s: %w", e.cfg.Model, err)
	}
	tokens := res.Usage.PromptTokens
	if len(res.Data) != len(texts) {
		return nil, tokens, fmt.Errorf("openai: embeddings with %s: %d vectors for %d texts", e.cfg.Model, len(res.Data), len(texts))
	}
	vecs := make([][]float32, len(texts))
	for _, d := range res.Data {
		i := int(d.Index)
		if i < 0 || i >= len(texts) || vecs[i] != nil {
			return nil, tokens, fmt.Errorf("openai: embeddings with %s: bad or repeated index %d", e.cfg.Model, d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, tokens, fmt.Errorf("openai: embeddings with %s: empty vector at index %d", e.cfg.Model, d.Index)
		}
		v := make([]float32, len(d.Embedding))
		for j, f := range d.Embedding {
			v[j] = float32(f)
		}
		vecs[i] = v
	}
	return vecs, tokens, nil
}
