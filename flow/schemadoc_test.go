package flow

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileSchema compiles the reflected schema with a 2020-12 validator.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := JSONSchema()
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource(SchemaID, doc))
	s, err := c.Compile(SchemaID)
	require.NoError(t, err)
	return s
}

// asJSON reads a definition as CrewAI does (YAML 1.1) and returns it as
// JSON data the validator takes.
func asJSON(t *testing.T, src []byte) any {
	t.Helper()
	root, _, err := parseNode(src)
	require.NoError(t, err)
	raw, err := json.Marshal(root.data())
	require.NoError(t, err)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	return v
}

func TestJSONSchemaShape(t *testing.T) {
	raw, err := JSONSchema()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", doc["$schema"])
	assert.Equal(t, SchemaID, doc["$id"])
	defs, _ := doc["$defs"].(map[string]any)
	for _, name := range []string{"Flow", "Method", "Action", "CodeAction", "EachAction", "Step", "Condition", "AndCondition", "State", "DictState", "LLM", "Crew", "Task"} {
		assert.Contains(t, defs, name)
	}
	for name := range defs {
		assert.False(t, strings.HasPrefix(name, "doc"), name)
	}
}

func TestJSONSchemaAcceptsValidFixtures(t *testing.T) {
	dir := os.Getenv("TROUPE_CONFORMANCE")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "conformance", "crewai")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "valid", "*.*"))
	more, _ := filepath.Glob(filepath.Join(dir, "valid", "*", "flow.yaml"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Skipf("conformance corpus not found at %s", dir)
	}
	s := compileSchema(t)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.NoError(t, s.Validate(asJSON(t, data)))
		})
	}
}

func TestJSONSchemaRejectsGarbage(t *testing.T) {
	s := compileSchema(t)
	tests := []struct{ name, src string }{
		{"methods not a map", "name: F\nmethods: 5\n"},
		{"no name", "methods: {}\n"},
		{"bad schema", "name: F\nschema: crewai.flow/v2\n"},
		{"method without do", "name: F\nmethods:\n  a: {start: true}\n"},
		{"bad method name", "name: F\nmethods:\n  a-b: {do: {call: expression, expr: '1'}}\n"},
		{"unknown call", "name: F\nmethods:\n  a: {do: {call: python, code: x}}\n"},
		{"extra action key", "name: F\nmethods:\n  a: {do: {call: expression, expr: '1', then: 2}}\n"},
		{"listen as list", "name: F\nmethods:\n  a: {listen: [b], do: {call: expression, expr: '1'}}\n"},
		{"bad condition", "name: F\nmethods:\n  a: {listen: {any: [b]}, do: {call: expression, expr: '1'}}\n"},
		{"nested each", "name: F\nmethods:\n  a: {do: {call: each, in: x, do: [{name: s, action: {call: each, in: y, do: []}}]}}\n"},
		{"step without call", "name: F\nmethods:\n  a: {do: {call: each, in: x, do: [{name: s, action: {ref: 'a:b'}}]}}\n"},
		{"state without type", "name: F\nstate: {default: {}}\n"},
		{"state default not a map", "name: F\nstate: {type: dict, default: 5}\n"},
		{"agent input not a string", "name: F\nmethods:\n  a: {do: {call: agent, with: {input: 5}}}\n"},
		{"empty tasks", "name: F\nmethods:\n  a: {do: {call: crew, with: {agents: {}, tasks: []}}}\n"},
		{"max_method_calls below 1", "name: F\nconfig: {max_method_calls: 0}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Error(t, s.Validate(asJSON(t, []byte(tt.src))))
		})
	}
}
