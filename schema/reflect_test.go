package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type searchArgs struct {
	Query  string   `json:"query" jsonschema:"description=What to search for"`
	Limit  int      `json:"limit,omitempty" jsonschema:"description=Most results to return,minimum=1"`
	Tags   []string `json:"tags"`
	Filter filter   `json:"filter"`
	Skip   bool     `json:"-"`
}

type filter struct {
	Lang string `json:"lang,omitempty" jsonschema:"enum=en,enum=fr"`
}

type treeNode struct {
	Name string      `json:"name"`
	Kids []*treeNode `json:"kids,omitempty"`
}

func TestReflectStruct(t *testing.T) {
	got, err := Reflect(searchArgs{})
	require.NoError(t, err)
	want := obj(
		"type", "object",
		"additionalProperties", false,
		"required", []any{"query", "tags", "filter"},
		"properties", obj(
			"query", obj("type", "string", "description", "What to search for"),
			"limit", obj("type", "integer", "description", "Most results to return", "minimum", int64(1)),
			"tags", obj("type", "array", "items", obj("type", "string")),
			"filter", obj(
				"type", "object",
				"additionalProperties", false,
				"properties", obj("lang", obj("type", "string", "enum", []any{"en", "fr"})),
			),
		),
	)
	assert.Equal(t, want, got)
	assert.Equal(t, want, For[searchArgs]())
	assert.Equal(t, want, For[*searchArgs]())
}

func TestReflectRecursiveTypeUsesDefs(t *testing.T) {
	got, err := Reflect(&treeNode{})
	require.NoError(t, err)
	assert.Equal(t, "#/$defs/treeNode", got["$ref"])
	require.Contains(t, got, "$defs")

	// The result compiles and validates nested values.
	s, err := Compile(got)
	require.NoError(t, err)
	assert.NoError(t, s.Validate(obj("name", "a", "kids", []any{obj("name", "b")})))
	assert.Error(t, s.Validate(obj("name", "a", "kids", []any{obj("nom", "b")})))
}

func TestReflectScalarsAndFailures(t *testing.T) {
	assert.Equal(t, obj("type", "string"), For[string]())
	assert.Equal(t, obj("type", "array", "items", obj("type", "integer")), For[[]int]())
	assert.Nil(t, For[chan int]())

	_, err := Reflect(func() {})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "schema: reflect")

	_, err = Reflect(nil)
	require.Error(t, err)
}

func TestReflectedSchemaValidatesToolArguments(t *testing.T) {
	s, err := Compile(For[searchArgs]())
	require.NoError(t, err)

	tests := []struct {
		name  string
		raw   string
		kinds []string
	}{
		{"valid", `{"query":"go","tags":[],"filter":{}}`, nil},
		{"missing and wrong", `{"limit":0,"tags":"x","filter":{"lang":"de"}}`,
			[]string{"literal_error", "greater_than_equal", "missing", "list_type"}},
		{"extra key", `{"query":"go","tags":[],"filter":{},"page":2}`, []string{"extra_forbidden"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateJSON(s, json.RawMessage(tt.raw))
			if tt.kinds == nil {
				require.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			var kinds []string
			for _, f := range ve.Fields {
				kinds = append(kinds, f.Kind)
			}
			assert.Equal(t, tt.kinds, kinds)
		})
	}
}

func TestReflectRefusesADescriptionCutByAComma(t *testing.T) {
	type cut struct {
		OrderID string `json:"order_id" jsonschema:"description=The order number, such as A-1001"`
	}
	_, err := Reflect(cut{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `field cut.OrderID`)
	assert.Contains(t, err.Error(), `jsonschema_description`)

	type nested struct {
		Orders []cut `json:"orders"`
	}
	_, err = Reflect(nested{})
	assert.ErrorContains(t, err, "field cut.OrderID")
}

func TestReflectKeepsDescriptionsWithCommas(t *testing.T) {
	type ok struct {
		Escaped  string `json:"escaped" jsonschema:"description=The order number\\, such as A-1001,minLength=1"`
		Separate string `json:"separate" jsonschema_description:"The order number, such as A-1001" jsonschema:"required,minLength=2"`
		Flags    string `json:"flags,omitempty" jsonschema:"description=plain,required"`
	}
	s, err := Reflect(ok{})
	require.NoError(t, err)
	props := s["properties"].(map[string]any)
	assert.Equal(t, "The order number, such as A-1001", props["escaped"].(map[string]any)["description"])
	assert.Equal(t, "The order number, such as A-1001", props["separate"].(map[string]any)["description"])
	assert.Equal(t, "plain", props["flags"].(map[string]any)["description"])
}
