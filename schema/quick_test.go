package schema

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The quick check may only confirm validity; whenever it does, the full
// validator must agree, and it must confirm the plainly valid cases.
func TestQuickCheckAgreesWithValidator(t *testing.T) {
	tests := []struct {
		name   string
		schema map[string]any
		value  any
		quick  bool // the quick check confirms it
	}{
		{"integer", obj("type", "integer"), int64(5), true},
		{"integral float as integer", obj("type", "integer"), 5.0, true},
		{"fraction as integer", obj("type", "integer"), 5.5, false},
		{"int as number", obj("type", "number"), int64(5), true},
		{"NaN", obj("type", "number"), math.NaN(), false},
		{"enum across number kinds", obj("enum", []any{int64(1), "a"}), 1.0, true},
		{"enum miss", obj("enum", []any{int64(1), "a"}), "b", false},
		{"const", obj("const", "x"), "x", true},
		{"bounds", obj("minimum", int64(1), "exclusiveMaximum", 2.5), int64(2), true},
		{"bound miss", obj("minimum", int64(1)), int64(0), false},
		{"string length in runes", obj("maxLength", int64(2)), "éé", true},
		{"pattern", obj("pattern", "^a"), "abc", true},
		{"required and extra", obj("properties", obj("a", obj()), "required", []any{"a"}, "additionalProperties", false), obj("a", int64(1)), true},
		{"extra forbidden", obj("properties", obj("a", obj()), "additionalProperties", false), obj("b", int64(1)), false},
		{"extra schema", obj("additionalProperties", obj("type", "string")), obj("b", "x"), true},
		{"items", obj("items", obj("type", "string"), "minItems", int64(1)), []any{"a"}, true},
		{"anyOf", obj("anyOf", []any{obj("type", "string"), obj("type", "null")}), nil, true},
		{"oneOf of two is left to the validator", obj("oneOf", []any{obj("type", "string"), obj("type", "null")}), nil, false},
		{"self reference", obj("properties", obj("kid", obj("$ref", "#"))), obj("kid", obj("kid", obj())), true},
		{"not is unsupported", obj("not", obj("type", "string")), int64(1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.schema)
			require.NoError(t, err)
			got := s.quick != nil && s.quick.valid(tt.value, 0)
			assert.Equal(t, tt.quick, got)
			if got {
				assert.NoError(t, s.compiled.Validate(tt.value))
			}
		})
	}
}

func TestQuickCheckSkipsOlderDrafts(t *testing.T) {
	s, err := Compile(obj("$schema", "http://json-schema.org/draft-07/schema#", "type", "string"))
	require.NoError(t, err)
	assert.Nil(t, s.quick)
	assert.NoError(t, s.Validate("x"))
}
