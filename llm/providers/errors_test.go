package providers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/providers"
)

// TestResolveErrorsNameEachContextOnce builds models through the registry,
// the way a flow does, and checks that the model and each package prefix
// appear once in the error.
func TestResolveErrorsNameEachContextOnce(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		cfg  llm.Config
		want string
	}{
		{"openai key missing", nil, llm.Config{Model: "openai/gpt-4o"},
			`llm: model "openai/gpt-4o": openai: no API key for provider openai; set OPENAI_API_KEY (in the environment or ./.env) or api_key in the LLM definition`},
		{"anthropic key missing", nil, llm.Config{Model: "claude-sonnet-4-5"},
			`llm: model "claude-sonnet-4-5": anthropic: no API key; set ANTHROPIC_API_KEY (in the environment or ./.env) or api_key in the LLM definition`},
		{"compatible service without endpoint", nil, llm.Config{Model: "hosted_vllm/qwen"},
			`llm: model "hosted_vllm/qwen": base_url: provider hosted_vllm has no default endpoint; set base_url in the LLM definition or HOSTED_VLLM_API_BASE`},
		{"no model name", map[string]string{"OPENAI_API_KEY": "sk-x"}, llm.Config{Model: "openai/"},
			`llm: model "openai/": model: no model name`},
		{"bad extra setting", map[string]string{"OPENAI_API_KEY": "sk-x"}, llm.Config{Model: "gpt-4o", Extra: map[string]any{"max_retries": 1.5}},
			`llm: model "gpt-4o": max_retries: must be a whole number, got number 1.5`},
		{"bad anthropic extra setting", map[string]string{"ANTHROPIC_API_KEY": "k"}, llm.Config{Model: "claude-sonnet-4-5", Extra: map[string]any{"max_retries": "x"}},
			`llm: model "claude-sonnet-4-5": max_retries: must be a whole number, got string "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := providers.Default(envOf(tt.env)).Resolve(context.Background(), tt.cfg)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestFakeResolverErrorThroughRegistry(t *testing.T) {
	p := llm.NewProviders()
	p.Register(llm.AnyProvider, fake.Resolver{"gpt-4o": fake.New()}.Factory())
	_, err := p.Resolve(context.Background(), llm.Config{Model: "x/y"})
	require.Error(t, err)
	assert.Equal(t, `llm: model "x/y": fake: no fake model matches; add it to the fake.Resolver (it has gpt-4o) or add a "*" entry`, err.Error())

	_, err = fake.Resolver{"gpt-4o": fake.New()}.Resolve(context.Background(), llm.Config{Model: "x/y"})
	assert.Equal(t, `fake: no fake model for "x/y"; add it to the fake.Resolver (it has gpt-4o) or add a "*" entry`, err.Error(),
		"used as a resolver on its own, it names the model")
}

// TestCallErrorsNameEachContextOnce calls models built by the registry
// against a loopback server and checks the errors of the call path.
func TestCallErrorsNameEachContextOnce(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	env := map[string]string{"OPENAI_API_KEY": "sk-test-abcdefghijkl", "OPENAI_BASE_URL": srv.URL()}
	m, err := providers.Default(envOf(env)).Resolve(context.Background(), llm.Config{Model: "gpt-4o", Extra: map[string]any{"max_retries": 0}})
	require.NoError(t, err)

	_, err = m.Generate(context.Background(), &llm.Request{})
	require.Error(t, err)
	assert.Equal(t, "llm: invalid request: no messages", err.Error())

	srv.Push(llmtest.Reply{Status: 400, Error: "bad things", Code: "bad_request"})
	_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.Error(t, err)
	assert.Equal(t, `llm: openai "gpt-4o": status 400 (bad_request): bad things; request id req_1`, err.Error())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.User("hi")}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, strings.Count(err.Error(), "gpt-4o"), err.Error())
	assert.True(t, errors.Is(err, context.Canceled))
}
