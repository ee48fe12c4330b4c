package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeJSONKeepsIntegersApart(t *testing.T) {
	tests := []struct {
		raw  string
		want any
	}{
		{`1`, int64(1)},
		{`1.0`, 1.0},
		{`1e2`, 100.0},
		{`-0`, int64(0)},
		{`12345678901234567890`, 12345678901234567890.0},
		{`{"a":[1,2.5,"x",null,true]}`, obj("a", []any{int64(1), 2.5, "x", nil, true})},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := DecodeJSON([]byte(tt.raw))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeJSONRejectsMalformedText(t *testing.T) {
	for _, raw := range []string{``, `{`, `{} {}`, `[1,]`, `1 x`} {
		t.Run(raw, func(t *testing.T) {
			_, err := DecodeJSON([]byte(raw))
			var je *JSONError
			require.ErrorAs(t, err, &je)
			assert.Contains(t, err.Error(), "schema: invalid JSON")
		})
	}
}

func TestConformJSONCoercesToolArguments(t *testing.T) {
	s, err := Compile(obj(
		"type", "object",
		"properties", obj("n", obj("type", "integer"), "q", obj("type", "string")),
		"required", []any{"q"},
	))
	require.NoError(t, err)

	got, err := s.ConformJSON(json.RawMessage(`{"n":"3","q":"go"}`))
	require.NoError(t, err)
	assert.Equal(t, obj("n", int64(3), "q", "go"), got)

	_, err = s.ConformJSON(json.RawMessage(`{"n":"three"}`))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Len(t, ve.Fields, 2)

	_, err = s.ConformJSON(json.RawMessage(`[1]`))
	require.ErrorAs(t, err, &ve)

	// Without coercion, "3" is not an integer.
	err = ValidateJSON(s, json.RawMessage(`{"n":"3","q":"go"}`))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "n", ve.Fields[0].Path)
}
