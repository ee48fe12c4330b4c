package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var laxSchema = obj(
	"type", "object",
	"properties", obj(
		"i", obj("type", "integer"),
		"f", obj("type", "number"),
		"b", obj("type", "boolean"),
		"s", obj("type", "string"),
		"either", obj("type", []any{"string", "integer"}),
		"num", obj("type", []any{"integer", "number"}),
		"maybe", obj("anyOf", []any{obj("type", "integer"), obj("type", "null")}),
		"ints", obj("type", "array", "items", obj("type", "integer")),
		"pair", obj("type", "array", "prefixItems", []any{obj("type", "boolean"), obj("type", "number")}),
		"nested", obj("type", "object", "properties", obj("n", obj("type", "integer"))),
		"counts", obj("type", "object", "additionalProperties", obj("type", "number")),
		"any", obj(),
	),
)

func TestCoerceIsLaxLikePydantic(t *testing.T) {
	s, err := Compile(laxSchema)
	require.NoError(t, err)
	tests := []struct {
		name string
		in   any
		key  string
		want any
	}{
		{"int from string", "5", "i", int64(5)},
		{"int from padded string", " -12 ", "i", int64(-12)},
		{"int from zero fraction", "5.00", "i", int64(5)},
		{"int from integral float", 5.0, "i", int64(5)},
		{"int from Go int", 7, "i", int64(7)},
		{"int from bool", true, "i", int64(1)},
		{"int keeps fraction", 5.5, "i", 5.5},
		{"int keeps bad string", "not-a-number", "i", "not-a-number"},
		{"int keeps fractional string", "5.5", "i", "5.5"},
		{"int keeps huge string", "99999999999999999999", "i", "99999999999999999999"},
		{"float from string", "2.5", "f", 2.5},
		{"float from exponent", "1e3", "f", 1000.0},
		{"float from int", int64(3), "f", 3.0},
		{"float keeps inf", "inf", "f", "inf"},
		{"float keeps hex", "0x1p-2", "f", "0x1p-2"},
		{"bool from true", "TRUE", "b", true},
		{"bool from yes", "yes", "b", true},
		{"bool from off", "Off", "b", false},
		{"bool from 0", "0", "b", false},
		{"bool from t", "t", "b", true},
		{"bool from int 1", int64(1), "b", true},
		{"bool from float 0", 0.0, "b", false},
		{"bool keeps 2", int64(2), "b", int64(2)},
		{"bool keeps maybe", "maybe", "b", "maybe"},
		{"string keeps int", int64(5), "s", int64(5)},
		{"union keeps string", "5", "either", "5"},
		{"int or float keeps int", int64(5), "num", int64(5)},
		{"int or float keeps float", 5.0, "num", 5.0},
		{"int or float from string", "5", "num", int64(5)},
		{"optional int", "5", "maybe", int64(5)},
		{"optional null", nil, "maybe", nil},
		{"array items", []any{"1", int64(2), "x"}, "ints", []any{int64(1), int64(2), "x"}},
		{"array from []string", []string{"1", "2"}, "ints", []any{int64(1), int64(2)}},
		{"prefix items", []any{"yes", "1.5"}, "pair", []any{true, 1.5}},
		{"nested object", obj("n", "4"), "nested", obj("n", int64(4))},
		{"additional properties", map[string]string{"a": "1.5"}, "counts", obj("a", 1.5)},
		{"unconstrained", "5", "any", "5"},
		{"unknown key", "5", "zzz", "5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := s.Coerce(map[string]any{tt.key: tt.in})
			assert.Equal(t, tt.want, out[tt.key])
		})
	}
}

func TestCoerceNeverMutatesInput(t *testing.T) {
	s, err := Compile(laxSchema)
	require.NoError(t, err)
	nested := obj("n", "4")
	ints := []any{"1", "2"}
	in := obj("i", "5", "nested", nested, "ints", ints)

	out := s.Coerce(in)
	assert.Equal(t, obj("i", int64(5), "nested", obj("n", int64(4)), "ints", []any{int64(1), int64(2)}), out)
	assert.Equal(t, obj("i", "5", "nested", obj("n", "4"), "ints", []any{"1", "2"}), in)

	out["extra"] = true
	assert.NotContains(t, in, "extra")
}

func TestCoerceFollowsRefsAndCycles(t *testing.T) {
	doc := obj(
		"$defs", obj("Tree", obj(
			"type", "object",
			"properties", obj(
				"size", obj("type", "integer"),
				"kids", obj("type", "array", "items", obj("$ref", "#/$defs/Tree")),
			),
		)),
		"$ref", "#/$defs/Tree",
	)
	s, err := Compile(doc)
	require.NoError(t, err)
	out, err := s.Conform(obj("size", "1", "kids", []any{obj("size", "2", "kids", []any{obj("size", 3.0)})}))
	require.NoError(t, err)
	assert.Equal(t, obj("size", int64(1), "kids", []any{obj("size", int64(2), "kids", []any{obj("size", int64(3))})}), out)
}

func TestConformReturnsCanonicalData(t *testing.T) {
	s, err := Compile(laxSchema)
	require.NoError(t, err)
	out, err := s.Conform(map[string]any{"i": int32(1), "f": float32(0.1), "any": []int{1, 2}})
	require.NoError(t, err)
	assert.Equal(t, obj("i", int64(1), "f", 0.1, "any", []any{int64(1), int64(2)}), out)
}
