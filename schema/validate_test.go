package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func obj(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// orderSchema exercises nested objects, arrays, enums and constraints.
var orderSchema = obj(
	"title", "Order",
	"type", "object",
	"properties", obj(
		"customer", obj(
			"type", "object",
			"properties", obj(
				"name", obj("type", "string", "minLength", 2),
				"email", obj("type", "string", "pattern", "^[^@]+@[^@]+$"),
			),
			"required", []any{"name"},
		),
		"items", obj(
			"type", "array",
			"minItems", 1,
			"items", obj(
				"type", "object",
				"properties", obj(
					"sku", obj("type", "string"),
					"qty", obj("type", "integer", "minimum", 1),
				),
				"required", []any{"sku", "qty"},
			),
		),
		"status", obj("enum", []any{"new", "paid", "shipped"}),
		"priority", obj("type", "integer", "exclusiveMaximum", 10),
		"note", obj("anyOf", []any{obj("type", "string"), obj("type", "null")}),
		"ratio", obj("type", "number", "multipleOf", 0.5),
		"express", obj("type", "boolean"),
		"tags", obj("type", "array", "items", obj("type", "string"), "maxItems", 2),
	),
	"required", []any{"customer", "items"},
)

func TestValidateReportsEveryField(t *testing.T) {
	s, err := Compile(orderSchema)
	require.NoError(t, err)
	tests := []struct {
		name  string
		value any
		want  []FieldError
	}{
		{
			name:  "valid",
			value: obj("customer", obj("name", "Ada"), "items", []any{obj("sku", "A1", "qty", 2)}),
		},
		{
			name:  "missing required at two levels",
			value: obj("customer", obj("email", "a@b.c"), "items", []any{obj("qty", 1)}),
			want: []FieldError{
				{Path: "customer.name", Kind: "missing", Message: "Field required"},
				{Path: "items.0.sku", Kind: "missing", Message: "Field required"},
			},
		},
		{
			name: "nested values",
			value: obj("customer", obj("name", "A", "email", "nope"),
				"items", []any{obj("sku", "A1", "qty", 1), obj("sku", "B2", "qty", int64(0))}),
			want: []FieldError{
				{Path: "customer.email", Kind: "string_pattern_mismatch", Input: "nope", Message: "String should match pattern '^[^@]+@[^@]+$'"},
				{Path: "customer.name", Kind: "string_too_short", Input: "A", Message: "String should have at least 2 characters"},
				{Path: "items.1.qty", Kind: "greater_than_equal", Input: int64(0), Message: "Input should be greater than or equal to 1"},
			},
		},
		{
			// Without WithPropertyOrder, properties sort by name.
			name: "enum, bounds and types",
			value: obj("customer", obj("name", "Ada"), "items", []any{},
				"status", "lost", "priority", 10, "note", 5, "ratio", 0.3, "express", "maybe",
				"tags", []string{"a", "b", "c"}),
			want: []FieldError{
				{Path: "express", Kind: "bool_parsing", Input: "maybe", Message: "Input should be a valid boolean, unable to interpret input"},
				{Path: "items", Kind: "too_short", Input: []any{}, Message: "List should have at least 1 item after validation, not 0"},
				{Path: "note", Kind: "string_type", Input: int64(5), Message: "Input should be a valid string"},
				{Path: "priority", Kind: "less_than", Input: int64(10), Message: "Input should be less than 10"},
				{Path: "ratio", Kind: "multiple_of", Input: 0.3, Message: "Input should be a multiple of 0.5"},
				{Path: "status", Kind: "literal_error", Input: "lost", Message: "Input should be 'new', 'paid' or 'shipped'"},
				{Path: "tags", Kind: "too_long", Input: []any{"a", "b", "c"}, Message: "List should have at most 2 items after validation, not 3"},
			},
		},
		{
			name:  "array indexes sort numerically",
			value: obj("customer", obj("name", "Ada"), "items", manyItems(12, 2, 10)),
			want: []FieldError{
				{Path: "items.2.qty", Kind: "int_from_float", Input: 1.5, Message: "Input should be a valid integer, got a number with a fractional part"},
				{Path: "items.10.qty", Kind: "int_from_float", Input: 1.5, Message: "Input should be a valid integer, got a number with a fractional part"},
			},
		},
		{
			name:  "not an object",
			value: []any{1},
			want:  []FieldError{{Path: "", Kind: "dict_type", Input: []any{int64(1)}, Message: "Input should be a valid dictionary"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Validate(tt.value)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "Order", ve.Title)
			assert.Equal(t, tt.want, ve.Fields)
		})
	}
}

// manyItems returns n valid items, with a fractional qty at the bad indexes.
func manyItems(n int, bad ...int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = obj("sku", "x", "qty", int64(1))
	}
	for _, i := range bad {
		out[i] = obj("sku", "x", "qty", 1.5)
	}
	return out
}

func TestValidateErrorsFollowDeclarationOrder(t *testing.T) {
	doc := obj("type", "object", "properties", obj(
		"zeta", obj("type", "integer"),
		"alpha", obj("type", "integer"),
	), "required", []any{"zeta", "alpha"})
	s, err := CompileState(doc, WithPropertyOrder("zeta", "alpha"))
	require.NoError(t, err)

	err = s.Validate(obj("alpha", "x", "extra", 1))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	paths := make([]string, len(ve.Fields))
	for i, f := range ve.Fields {
		paths[i] = f.Path
	}
	assert.Equal(t, []string{"zeta", "alpha", "extra"}, paths)
	assert.Equal(t, "3 validation errors for DynamicModel: zeta: Field required; "+
		"alpha: Input should be a valid integer, unable to parse string as an integer; "+
		"extra: Extra inputs are not permitted", err.Error())
	assert.False(t, ve.OnlyMissing())
}

func TestValidateFollowsRefs(t *testing.T) {
	doc := obj(
		"type", "object",
		"$defs", obj("Address", obj(
			"type", "object",
			"properties", obj("city", obj("type", "string")),
			"required", []any{"city"},
		)),
		"properties", obj("home", obj("$ref", "#/$defs/Address", "description", "Where they live")),
	)
	s, err := Compile(doc)
	require.NoError(t, err)

	err = s.Validate(obj("home", obj("city", 3)))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []FieldError{{Path: "home.city", Kind: "string_type", Input: int64(3), Message: "Input should be a valid string"}}, ve.Fields)

	p, ok := s.Property("home")
	require.True(t, ok)
	assert.Equal(t, "object", p.Type)
	assert.Equal(t, "Where they live", p.Description)

	out, err := s.Conform(obj("home", obj("city", "Paris")))
	require.NoError(t, err)
	assert.Equal(t, obj("home", obj("city", "Paris")), out)
}

func TestValidateAcceptsGoShapes(t *testing.T) {
	s, err := Compile(obj("type", "object", "properties", obj(
		"n", obj("type", "integer"),
		"f", obj("type", "number"),
		"tags", obj("type", "array", "items", obj("type", "string")),
		"meta", obj("type", "object", "additionalProperties", obj("type", "string")),
		"rows", obj("type", "array", "items", obj("type", "object")),
	)))
	require.NoError(t, err)
	assert.NoError(t, s.Validate(map[string]any{
		"n":    int32(3),
		"f":    float32(0.5),
		"tags": []string{"a"},
		"meta": map[string]string{"k": "v"},
		"rows": []map[string]any{{"a": 1}},
	}))

	err = s.Validate(map[string]any{"n": struct{}{}})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "invalid_type", ve.Fields[0].Kind)
}

func TestValidateOtherKeywords(t *testing.T) {
	tests := []struct {
		name   string
		schema map[string]any
		value  any
		kind   string
		msg    string
	}{
		{"const", obj("const", "x"), "y", "literal_error", "Input should be 'x'"},
		{"null only", obj("type", "null"), 1, "none_required", "Input should be None"},
		{"several types", obj("type", []any{"integer", "string"}), true, "type_error", "Input should be a valid integer or string"},
		{"number from string", obj("type", "number"), "abc", "float_parsing", "Input should be a valid number, unable to parse string as a number"},
		{"max length", obj("type", "string", "maxLength", 1), "ab", "string_too_long", "String should have at most 1 character"},
		{"minimum float", obj("minimum", 0.5), 0.25, "greater_than_equal", "Input should be greater than or equal to 0.5"},
		{"unique", obj("uniqueItems", true), []any{1, 1}, "unique_items", "List should have unique items; items 0 and 1 are equal"},
		{"min properties", obj("minProperties", 1), obj(), "too_short", "Dictionary should have at least 1 item after validation, not 0"},
		{"false schema", obj("properties", obj("x", false)), obj("x", 1), "extra_forbidden", "Extra inputs are not permitted"},
		{"dependent", obj("dependentRequired", obj("a", []any{"b"})), obj("a", 1), "dependentRequired", "Properties 'b' required, if 'a' exists"},
		{"not", obj("not", obj("type", "string")), "s", "not", "'not' failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.schema)
			require.NoError(t, err)
			err = s.Validate(tt.value)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.NotEmpty(t, ve.Fields)
			assert.Equal(t, tt.kind, ve.Fields[0].Kind)
			assert.Equal(t, tt.msg, ve.Fields[0].Message)
		})
	}
}

func TestCompileRejectsBadSchemas(t *testing.T) {
	tests := []struct {
		name string
		doc  map[string]any
	}{
		{"bad type", obj("type", 5)},
		{"remote ref", obj("$ref", "https://example.com/s.json")},
		{"file ref", obj("$ref", "/etc/passwd")},
		{"dangling pointer", obj("$ref", "#/$defs/nope")},
		{"bad pattern", obj("pattern", "(")},
		{"unknown draft", obj("$schema", "https://example.com/my-draft")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.doc)
			assert.Nil(t, s)
			var ce *CompileError
			require.ErrorAs(t, err, &ce)
			assert.Contains(t, err.Error(), "schema: invalid JSON Schema")
		})
	}
}

func TestCompileHonoursSchemaDraft(t *testing.T) {
	// In draft-07, "items" given as a list is a tuple; in 2020-12 it is
	// not allowed at all.
	tuple := obj("items", []any{obj("type", "string")}, "additionalItems", false)
	_, err := Compile(tuple)
	require.Error(t, err)

	tuple["$schema"] = "http://json-schema.org/draft-07/schema#"
	s, err := Compile(tuple)
	require.NoError(t, err)
	assert.NoError(t, s.Validate([]any{"a"}))
	assert.Error(t, s.Validate([]any{"a", "b"}))
}
