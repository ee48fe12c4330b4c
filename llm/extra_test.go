package llm_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
)

func TestExtraInt(t *testing.T) {
	tests := []struct {
		name   string
		v      any
		want   int
		ok     bool
		errSub string
	}{
		{"absent", nil, 0, false, ""},
		{"int", 0, 0, true, ""},
		{"int64", int64(4), 4, true, ""},
		{"int32", int32(2), 2, true, ""},
		{"uint8", uint8(1), 1, true, ""},
		{"uint64", uint64(7), 7, true, ""},
		{"float with no fraction", 0.0, 0, true, ""},
		{"float32 with no fraction", float32(3), 3, true, ""},
		{"json.Number", json.Number("5"), 5, true, ""},
		{"json.Number with a zero fraction", json.Number("5.0"), 5, true, ""},
		{"numeric string", "0", 0, true, ""},
		{"padded numeric string", " 2 ", 2, true, ""},
		{"string with a zero fraction", "2.0", 2, true, ""},
		{"fraction", 1.5, 0, false, `max_retries: must be a whole number, got number 1.5`},
		{"fractional string", "1.5", 0, false, `max_retries: must be a whole number, got string "1.5"`},
		{"word", "abc", 0, false, `max_retries: must be a whole number, got string "abc"`},
		{"boolean", true, 0, false, `max_retries: must be a whole number, got boolean true`},
		{"list", []any{int64(1)}, 0, false, `max_retries: must be a whole number, got a list`},
		{"negative", -1, 0, false, `max_retries: must be between 0 and 2147483647, got -1`},
		{"too large", int64(1) << 40, 0, false, `max_retries: must be between 0 and 2147483647, got 1099511627776`},
		{"huge uint", uint64(1) << 63, 0, false, `max_retries: must be a whole number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := llm.Config{Model: "m"}
			if tt.v != nil {
				cfg.Extra = map[string]any{"max_retries": tt.v}
			}
			n, ok, err := cfg.ExtraInt("max_retries")
			if tt.errSub != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errSub)
				ce, isConfig := errors.AsType[*llm.ConfigError](err)
				require.True(t, isConfig, "want *llm.ConfigError, got %T", err)
				assert.Equal(t, "max_retries", ce.Key)
				assert.False(t, ok)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, n)
		})
	}
}

func TestExtraString(t *testing.T) {
	cfg := llm.Config{Extra: map[string]any{"organization": "org-1", "project": int64(12), "nothing": nil}}
	s, ok, err := cfg.ExtraString("organization")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "org-1", s)

	_, ok, err = cfg.ExtraString("nothing")
	require.NoError(t, err)
	assert.False(t, ok, "null is unset")

	_, _, err = cfg.ExtraString("project")
	require.EqualError(t, err, "llm: config: project: must be a string, got number 12")
}
