package openai_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/openai"
)

func TestWireRequest(t *testing.T) {
	topP := 0.9
	seed := int64(7)
	m, srv := newModel(t, llm.Config{Model: "gpt-4o", TopP: &topP, Seed: &seed, MaxTokens: 100,
		Stop: []string{"END"}, Extra: map[string]any{"reasoning_effort": "low", "unknown_key": "dropped"}})
	srv.Push(llmtest.Reply{Text: "ok"})
	_, err := m.Generate(context.Background(), &llm.Request{
		Messages:   []llm.Message{llm.User("hi")},
		Tools:      []llm.ToolSpec{{Name: "lookup", Parameters: map[string]any{"type": "object"}, Strict: true}},
		ToolChoice: "lookup",
	})
	require.NoError(t, err)
	rec := srv.Received()[0]
	assert.Equal(t, "Bearer "+testKey, rec.Header.Get("Authorization"))
	assert.Equal(t, "gpt-4o", rec.Body["model"])
	assert.Equal(t, int64(100), rec.Body["max_completion_tokens"], "OpenAI proper gets max_completion_tokens")
	assert.Equal(t, 0.9, rec.Body["top_p"])
	assert.Equal(t, int64(7), rec.Body["seed"])
	assert.Equal(t, []any{"END"}, rec.Body["stop"])
	assert.Equal(t, "low", rec.Body["reasoning_effort"])
	assert.NotContains(t, rec.Body, "unknown_key")
	assert.Equal(t, map[string]any{"type": "function", "function": map[string]any{"name": "lookup"}}, rec.Body["tool_choice"])
	assert.True(t, rec.Request.Tools[0].Strict)
}

func TestStopCutClientSideForReasoningModels(t *testing.T) {
	m, srv := newModel(t, llm.Config{Model: "o3-mini"})
	req := &llm.Request{Messages: []llm.Message{llm.User("hi")}, Stop: []string{"\nObservation:"}}
	srv.Push(llmtest.Reply{Text: "Action: x\nObservation: made up"})
	resp, err := m.Generate(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "Action: x", resp.Text())
	assert.NotContains(t, srv.Received()[0].Body, "stop", "o-series models reject stop")

	srv.Push(llmtest.Reply{Text: "Action: x\nObservation: made up", Pieces: 8})
	var text string
	for c, err := range m.Stream(context.Background(), req) {
		require.NoError(t, err)
		text += c.TextDelta
		if c.Done != nil {
			assert.Equal(t, "Action: x", c.Done.Text())
		}
	}
	assert.Equal(t, "Action: x", text)
}

func TestEnvironment(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	env := map[string]string{"OPENAI_API_KEY": "sk-from-env-abcdefghijkl", "OPENAI_BASE_URL": srv.URL()}
	m, err := openai.New(llm.Config{Model: "gpt-4o-mini"}, openai.WithEnv(func(k string) string { return env[k] }))
	require.NoError(t, err)
	srv.Push(llmtest.Reply{Text: "ok"})
	_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.NoError(t, err)
	assert.Equal(t, "Bearer sk-from-env-abcdefghijkl", srv.Received()[0].Header.Get("Authorization"))

	_, err = openai.New(llm.Config{Model: "gpt-4o-mini"})
	var mk *openai.MissingKeyError
	require.True(t, errors.As(err, &mk), "without WithEnv the environment is not read")
	assert.Contains(t, err.Error(), "OPENAI_API_KEY")
}

func TestCompatibleServerGetsMaxTokens(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	m, err := openai.New(llm.Config{Model: "ollama/llama3.1", BaseURL: srv.URL(), MaxTokens: 50}, openai.WithoutKey())
	require.NoError(t, err)
	srv.Push(llmtest.Reply{Text: "ok"})
	_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.NoError(t, err)
	rec := srv.Received()[0]
	assert.Equal(t, "llama3.1", rec.Body["model"])
	assert.Equal(t, int64(50), rec.Body["max_tokens"])
	assert.Empty(t, rec.Header.Get("Authorization"), "no key, no Authorization header")
}

func TestInvalidRequest(t *testing.T) {
	m, srv := newModel(t, llm.Config{})
	_, err := m.Generate(context.Background(), &llm.Request{})
	require.Error(t, err)
	assert.Equal(t, "llm: invalid request: no messages", err.Error())
	assert.Empty(t, srv.Received(), "nothing is sent")
}
