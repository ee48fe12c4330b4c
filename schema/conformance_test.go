package schema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

const conformanceDir = "../../shared/conformance/crewai/valid"

// fixtureState reads the state block of a conformance fixture: its JSON
// Schema, its default map, and the declaration order of the properties.
func fixtureState(t *testing.T, name string) (doc, def map[string]any, order []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(conformanceDir, name))
	if os.IsNotExist(err) {
		t.Skipf("conformance corpus not found: %v", err)
	}
	require.NoError(t, err)
	var root yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &root))
	var flow struct {
		State struct {
			JSONSchema map[string]any `yaml:"json_schema"`
			Default    map[string]any `yaml:"default"`
		} `yaml:"state"`
	}
	require.NoError(t, root.Decode(&flow))
	return flow.State.JSONSchema, flow.State.Default, propertyOrder(&root)
}

// propertyOrder finds state.json_schema.properties keys in document order.
func propertyOrder(root *yaml.Node) []string {
	node := root
	for _, key := range []string{"state", "json_schema", "properties"} {
		if node.Kind == yaml.DocumentNode {
			node = node.Content[0]
		}
		next := (*yaml.Node)(nil)
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == key {
				next = node.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		node = next
	}
	var out []string
	for i := 0; i < len(node.Content); i += 2 {
		out = append(out, node.Content[i].Value)
	}
	return out
}

func compileFixture(t *testing.T, name string) (*Schema, map[string]any) {
	t.Helper()
	doc, def, order := fixtureState(t, name)
	s, err := CompileState(doc, WithPropertyOrder(order...))
	require.NoError(t, err)
	return s, def
}

func TestConformanceStateDefaults(t *testing.T) {
	s, _ := compileFixture(t, "state_json_schema.yaml")
	assert.Equal(t, "CounterState", s.Title())
	assert.Equal(t, map[string]any{"count": int64(0), "label": "none"}, s.Defaults())

	props := s.Properties()
	require.Len(t, props, 2)
	assert.Equal(t, "count", props[0].Name)
	assert.Equal(t, "integer", props[0].Type)
	assert.Equal(t, "label", props[1].Name)
	assert.Equal(t, "string", props[1].Type)
}

func TestConformanceStateRejectsBadInputs(t *testing.T) {
	s, _ := compileFixture(t, "state_json_schema.yaml")
	tests := []struct {
		name   string
		inputs map[string]any
		want   []FieldError
	}{
		{
			name:   "not a number for an integer",
			inputs: map[string]any{"count": "not-a-number"},
			want: []FieldError{{Path: "count", Kind: "int_parsing", Input: "not-a-number",
				Message: "Input should be a valid integer, unable to parse string as an integer"}},
		},
		{
			name:   "unknown key",
			inputs: map[string]any{"count": int64(1), "cuont": int64(2)},
			want: []FieldError{{Path: "cuont", Kind: "extra_forbidden", Input: int64(2),
				Message: "Extra inputs are not permitted"}},
		},
		{
			name:   "number for a string",
			inputs: map[string]any{"label": 5},
			want: []FieldError{{Path: "label", Kind: "string_type", Input: int64(5),
				Message: "Input should be a valid string"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			merged := s.Defaults()
			for k, v := range tt.inputs {
				merged[k] = v
			}
			out, err := s.Conform(merged)
			assert.Nil(t, out)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.want, ve.Fields)
			assert.Equal(t, "CounterState", ve.Title)
		})
	}
}

func TestConformanceStateErrorText(t *testing.T) {
	s, _ := compileFixture(t, "state_json_schema.yaml")
	_, err := s.Conform(map[string]any{"count": "not-a-number", "label": "x"})
	require.Error(t, err)
	assert.Equal(t,
		"1 validation error for CounterState: count: Input should be a valid integer, unable to parse string as an integer",
		err.Error())
}

func TestConformanceStateCoercesStrings(t *testing.T) {
	s, _ := compileFixture(t, "state_json_schema.yaml")
	out, err := s.Conform(map[string]any{"count": "5", "label": "x", "id": "run-1"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"count": int64(5), "label": "x", "id": "run-1"}, out)
}

func TestConformanceRequiredFromInputs(t *testing.T) {
	s, def := compileFixture(t, "state_json_schema_required_from_inputs.yaml")
	assert.Equal(t, "LeadState", s.Title())
	assert.Equal(t, []string{"lead_name"}, s.Missing(def))

	// Only "missing" errors: the engine builds the state unvalidated.
	err := s.Validate(map[string]any{"id": "x"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.True(t, ve.OnlyMissing())
	assert.Equal(t, []FieldError{{Path: "lead_name", Kind: "missing", Message: "Field required"}}, ve.Fields)

	out, err := s.Conform(map[string]any{"id": "x", "lead_name": "Ada Lovelace"})
	require.NoError(t, err)
	assert.Equal(t, "Ada Lovelace", out["lead_name"])
	assert.Empty(t, s.Missing(out))
}

func TestConformanceCLIRequiredInput(t *testing.T) {
	s, def := compileFixture(t, "cli_required_input.yaml")
	inputs := map[string]any{"prospect_emai": "a@b.com"}

	assert.Equal(t, []string{"prospect_emai"}, s.Unknown(inputs))
	closest, ok := s.Closest("prospect_emai")
	require.True(t, ok)
	assert.Equal(t, "prospect_email", closest)

	assert.Equal(t, []string{"prospect_email"}, s.Missing(def))
	p, ok := s.Property("prospect_email")
	require.True(t, ok)
	assert.Equal(t, "Email address of the prospect to research", p.Description)
	assert.True(t, p.Required)

	// Without the CLI's pre-filter, the unknown key is rejected.
	_, err := s.Conform(map[string]any{"prospect_email": "a@b.com", "prospect_emai": "x"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Fields, 1)
	assert.Equal(t, "prospect_emai", ve.Fields[0].Path)
	assert.Equal(t, "extra_forbidden", ve.Fields[0].Kind)

	// "id" is always allowed and never unknown.
	assert.Empty(t, s.Unknown(map[string]any{"id": "abc"}))
}

func TestConformanceCLIDefaultsSatisfyRequired(t *testing.T) {
	s, def := compileFixture(t, "cli_defaults_required.yaml")
	assert.Equal(t, []string{"topic", "audience"}, s.Required())
	assert.Equal(t, []string{"audience"}, s.Missing(def))
}

func TestConformanceCLITypedInput(t *testing.T) {
	s, _ := compileFixture(t, "cli_typed_input.yaml")
	_, err := s.Conform(map[string]any{"count": "nope"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Fields, 1)
	assert.Equal(t, "count", ve.Fields[0].Path)

	out, err := s.Conform(map[string]any{"count": "7"})
	require.NoError(t, err)
	assert.Equal(t, int64(7), out["count"])
}

func TestConformanceMinimalSchema(t *testing.T) {
	s, _ := compileFixture(t, "state_json_schema_minimal.json")
	assert.Equal(t, DefaultModelName, s.Title())
	assert.Empty(t, s.Properties())
	assert.NoError(t, s.Validate(map[string]any{"id": "abc"}))

	err := s.Validate(map[string]any{"topic": "AI"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "extra_forbidden", ve.Fields[0].Kind)
}
