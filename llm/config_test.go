package llm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

func ptr[T any](v T) *T { return &v }

func TestConfigFromMap(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want llm.Config
	}{
		{"model only", map[string]any{"model": "gpt-4o"}, llm.Config{Model: "gpt-4o"}},
		{
			"all known keys",
			map[string]any{
				"model": "openai/gpt-4o", "provider": "openai", "base_url": "http://localhost:8000/v1",
				"api_key": "sk-test", "temperature": 0.2, "top_p": 1, "max_tokens": 512, "seed": 42,
				"timeout": 30, "stop": []any{"\nObservation:", "END"},
			},
			llm.Config{
				Model: "openai/gpt-4o", Provider: "openai", BaseURL: "http://localhost:8000/v1", APIKey: "sk-test",
				Temperature: ptr(0.2), TopP: ptr(1.0), MaxTokens: 512, Seed: ptr(int64(42)),
				Timeout: 30 * time.Second, Stop: []string{"\nObservation:", "END"},
			},
		},
		{"api_base alias", map[string]any{"model": "ollama/llama3.1", "api_base": "http://localhost:11434"}, llm.Config{Model: "ollama/llama3.1", BaseURL: "http://localhost:11434"}},
		{"same base_url twice", map[string]any{"model": "m", "api_base": "http://x", "base_url": "http://x"}, llm.Config{Model: "m", BaseURL: "http://x"}},
		{"stop as a string", map[string]any{"model": "m", "stop": "END"}, llm.Config{Model: "m", Stop: []string{"END"}}},
		{"stop_sequences alias", map[string]any{"model": "m", "stop_sequences": []string{"a"}}, llm.Config{Model: "m", Stop: []string{"a"}}},
		{"max_completion_tokens alias", map[string]any{"model": "m", "max_completion_tokens": int64(100)}, llm.Config{Model: "m", MaxTokens: 100}},
		{"fractional timeout", map[string]any{"model": "m", "timeout": 1.5}, llm.Config{Model: "m", Timeout: 1500 * time.Millisecond}},
		{"numeric strings", map[string]any{"model": "m", "temperature": "0.7", "max_tokens": "64"}, llm.Config{Model: "m", Temperature: ptr(0.7), MaxTokens: 64}},
		{"integral float as int", map[string]any{"model": "m", "max_tokens": 64.0}, llm.Config{Model: "m", MaxTokens: 64}},
		{"json.Number", map[string]any{"model": "m", "temperature": json.Number("0.1")}, llm.Config{Model: "m", Temperature: ptr(0.1)}},
		{"nulls leave keys unset", map[string]any{"model": "m", "temperature": nil, "max_tokens": nil, "extra": nil}, llm.Config{Model: "m"}},
		{"model trimmed", map[string]any{"model": "  gpt-4o "}, llm.Config{Model: "gpt-4o"}},
		{
			"other keys go to Extra, canonical",
			map[string]any{"model": "m", "api_version": "2024-06-01", "max_retries": 3, "reasoning_effort": "low", "headers": map[string]string{"X": "y"}, "penalties": []float32{0.5}},
			llm.Config{Model: "m", Extra: map[string]any{"api_version": "2024-06-01", "max_retries": int64(3), "reasoning_effort": "low", "headers": map[string]any{"X": "y"}, "penalties": []any{float64(0.5)}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.ConfigFromMap(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestConfigFromMapErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]any
		key     string
		wantErr string
	}{
		{"missing model", map[string]any{"temperature": 0.1}, "model", "llm: config: model: Field required"},
		{"null model", map[string]any{"model": nil}, "model", "Field required"},
		{"empty model", map[string]any{"model": " "}, "model", "must not be empty"},
		{"model not a string", map[string]any{"model": 4}, "model", "must be a string, got number 4"},
		{"temperature not a number", map[string]any{"model": "m", "temperature": "hot"}, "temperature", `must be a number, got string "hot"`},
		{"temperature bool", map[string]any{"model": "m", "temperature": true}, "temperature", "got boolean true"},
		{"max_tokens fractional", map[string]any{"model": "m", "max_tokens": 1.5}, "max_tokens", "must be an integer"},
		{"max_tokens negative", map[string]any{"model": "m", "max_tokens": -1}, "max_tokens", "must be between 0"},
		{"seed list", map[string]any{"model": "m", "seed": []any{1}}, "seed", "got a list"},
		{"timeout negative", map[string]any{"model": "m", "timeout": -1}, "timeout", "non-negative"},
		{"timeout text", map[string]any{"model": "m", "timeout": "soon"}, "timeout", "number of seconds"},
		{"stop number", map[string]any{"model": "m", "stop": 3}, "stop", "a string or a list of strings"},
		{"stop item", map[string]any{"model": "m", "stop": []any{"a", 2}}, "stop[1]", "must be a string"},
		{"conflicting base urls", map[string]any{"model": "m", "base_url": "http://a", "api_base": "http://b"}, "api_base", "conflicts with base_url"},
		{"api_key not string", map[string]any{"model": "m", "api_key": 5}, "api_key", "must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := llm.ConfigFromMap(tt.in)
			require.Error(t, err)
			var ce *llm.ConfigError
			require.True(t, errors.As(err, &ce))
			assert.Equal(t, tt.key, ce.Key)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestConfigFromValue(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    llm.Config
		wantErr string
	}{
		{"model string", "anthropic/claude-3-5-haiku", llm.Config{Model: "anthropic/claude-3-5-haiku"}, ""},
		{"map", map[string]any{"model": "gpt-4o", "temperature": 0}, llm.Config{Model: "gpt-4o", Temperature: ptr(0.0)}, ""},
		{"string map", map[string]string{"model": "gpt-4o", "base_url": "http://x"}, llm.Config{Model: "gpt-4o", BaseURL: "http://x"}, ""},
		{"config", llm.Config{Model: "x"}, llm.Config{Model: "x"}, ""},
		{"empty string", "", llm.Config{}, "empty model string"},
		{"nil", nil, llm.Config{}, "want a model string or a mapping with a model key, got null"},
		{"number", 3, llm.Config{}, "got number 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.ConfigFromValue(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestConfigMapRoundTrip(t *testing.T) {
	in := map[string]any{
		"model": "openai/gpt-4o", "provider": "openai", "base_url": "http://x", "temperature": 0.2,
		"top_p": 0.9, "max_tokens": int64(100), "seed": int64(1), "timeout": int64(30),
		"stop": []any{"END"}, "api_version": "v1",
	}
	cfg, err := llm.ConfigFromMap(in)
	require.NoError(t, err)
	assert.Equal(t, in, cfg.Map())

	cfg.APIKey = "sk-secret"
	cfg.Timeout = 1500 * time.Millisecond
	m := cfg.Map()
	assert.NotContains(t, m, "api_key", "the key is never serialized")
	assert.Equal(t, 1.5, m["timeout"])
}

func TestConfigNeverPrintsSecrets(t *testing.T) {
	cfg := llm.Config{
		Model: "openai/gpt-4o", APIKey: "sk-verysecretkey123", Temperature: ptr(0.5),
		Extra: map[string]any{"aws_secret_access_key": "hidden-1", "default_headers": map[string]any{"Authorization": "Bearer hidden-2"}, "api_version": "v1", "max_completion_tokens": 10},
	}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("resolve", "llm", cfg)
	for _, s := range []string{cfg.String(), fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), logged.String()} {
		assert.NotContains(t, s, "verysecret")
		assert.NotContains(t, s, "hidden-1")
		assert.NotContains(t, s, "hidden-2")
		assert.Contains(t, s, "openai/gpt-4o")
		assert.Contains(t, s, "[redacted]")
	}
	assert.Equal(t, "llm.Config{model=openai/gpt-4o api_key=[redacted] temperature=0.5 api_version=v1 aws_secret_access_key=[redacted] default_headers=[redacted] max_completion_tokens=10}", cfg.String())
}
