package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/openai"
)

type request struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions"`
	auth       string
	path       string
}

// server speaks /v1/embeddings: the vector of a text is {len(text), index
// in its batch}, sent back in reverse order to check reordering.
func server(t *testing.T, status int) (*httptest.Server, *[]request) {
	var mu sync.Mutex
	var seen []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req request
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		req.auth, req.path = r.Header.Get("Authorization"), r.URL.Path
		mu.Lock()
		seen = append(seen, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error": {"message": "model not found", "type": "invalid_request_error"}}`))
			return
		}
		data := []map[string]any{}
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float64{float64(len(req.Input[i])), float64(i)}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"object": "list", "model": req.Model, "data": data,
			"usage": map[string]any{"prompt_tokens": 3 * len(req.Input), "total_tokens": 3 * len(req.Input)},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestEmbedBatchesAndCountsUsage(t *testing.T) {
	srv, seen := server(t, http.StatusOK)
	e, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "text-embedding-3-small", Dimensions: 2, BatchSize: 2})
	require.NoError(t, err)

	vecs, usage, err := e.Embed(context.Background(), []string{"a", "bb", "ccc", "dddd", "eeeee"})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{1, 0}, {2, 1}, {3, 0}, {4, 1}, {5, 0}}, vecs)
	assert.Equal(t, memory.Usage{InputTokens: 15, Requests: 3}, usage)
	require.Len(t, *seen, 3)
	first := (*seen)[0]
	assert.Equal(t, "/v1/embeddings", first.path)
	assert.Equal(t, "Bearer sk-test", first.auth)
	assert.Equal(t, "text-embedding-3-small", first.Model)
	assert.Equal(t, 2, first.Dimensions)
	assert.Equal(t, []string{"a", "bb"}, first.Input)
	assert.Equal(t, []string{"eeeee"}, (*seen)[2].Input)
	assert.Equal(t, "openai:"+srv.URL+"/v1:text-embedding-3-small:2", e.ID())
}

func TestEmbedReportsServerErrors(t *testing.T) {
	srv, _ := server(t, http.StatusNotFound)
	e, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "nope", Options: []option.RequestOption{option.WithMaxRetries(0)}})
	require.NoError(t, err)
	_, usage, err := e.Embed(context.Background(), []string{"x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "openai: embeddings with nope")
	assert.Equal(t, int64(1), usage.Requests)
}

func TestNewNeedsAModel(t *testing.T) {
	_, err := openai.New(openai.Config{})
	assert.ErrorContains(t, err, "Config.Model")
}

// TestMemoryOverOpenAI runs memory end to end on the embedder, with its
// spending reported.
func TestMemoryOverOpenAI(t *testing.T) {
	srv, seen := server(t, http.StatusOK)
	e, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m"})
	require.NoError(t, err)
	var spent []memory.Spend
	m, err := memory.New(memory.NewInMemoryStore(), memory.WithEmbedder(e), memory.WithSpendObserver(func(s memory.Spend) { spent = append(spent, s) }))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = m.RememberMany(ctx, []memory.Item{{Content: "ab"}, {Content: "c"}})
	require.NoError(t, err)
	got, err := m.Recall(ctx, memory.Query{Text: "x"})
	require.NoError(t, err)
	assert.Len(t, got, 2)
	assert.Len(t, *seen, 2)
	assert.Equal(t, memory.Spending{Embedding: memory.Usage{InputTokens: 9, Requests: 2}}, m.Usage())
	assert.Len(t, spent, 2)
}
