package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/openai"
)

func TestMaxRetriesSetting(t *testing.T) {
	tests := []struct {
		name      string
		v         any
		wantCalls int
	}{
		{"int 0", 0, 1},
		{"int64 0", int64(0), 1},
		{"float 0.0", 0.0, 1},
		{"string 0", "0", 1},
		{"json.Number 1", json.Number("1"), 2},
		{"uint8 1", uint8(1), 2},
		{"string 1.0", "1.0", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t)
			cfg := llm.Config{Model: "gpt-4o", BaseURL: srv.URL(), APIKey: testKey, Extra: map[string]any{"max_retries": tt.v}}
			m, err := openai.New(cfg, openai.WithRetry(0, time.Millisecond, time.Millisecond))
			require.NoError(t, err)
			for range 4 {
				srv.Push(llmtest.Reply{Status: 503, Error: "overloaded"})
			}
			_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("hi")}})
			require.Error(t, err)
			assert.Len(t, srv.Received(), tt.wantCalls, "max_retries counts retries after the first attempt")
		})
	}
}

func TestBadExtraSettingFailsNew(t *testing.T) {
	tests := []struct {
		key    string
		v      any
		errSub string
	}{
		{"max_retries", 1.5, "max_retries: must be a whole number, got number 1.5"},
		{"max_retries", "abc", `max_retries: must be a whole number, got string "abc"`},
		{"max_retries", true, "max_retries: must be a whole number, got boolean true"},
		{"max_retries", -1, "max_retries: must be between 0 and"},
		{"organization", int64(42), "organization: must be a string, got number 42"},
		{"project", []any{"p"}, "project: must be a string, got a list"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s=%v", tt.key, tt.v), func(t *testing.T) {
			cfg := llm.Config{Model: "gpt-4o", APIKey: testKey, Extra: map[string]any{tt.key: tt.v}}
			_, err := openai.New(cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.errSub)
			ce, ok := errors.AsType[*llm.ConfigError](err)
			require.True(t, ok, "want *llm.ConfigError, got %T", err)
			assert.Equal(t, tt.key, ce.Key)
		})
	}
}
