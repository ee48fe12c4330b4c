package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// schemaFromCLI compiles the schema that `troupe schema` prints.
func schemaFromCLI(t *testing.T) *jsonschema.Schema {
	t.Helper()
	code, out, errOut := troupe(t, "", "schema")
	require.Equal(t, exitOK, code, errOut)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(out)))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("flow.schema.json", doc))
	s, err := c.Compile("flow.schema.json")
	require.NoError(t, err)
	return s
}

// yamlAsJSON decodes a YAML or JSON document into JSON data, as an editor
// does before it applies a schema.
func yamlAsJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal(data, &v))
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	return out
}

func TestSchemaIsDraft2020(t *testing.T) {
	_, out, _ := troupe(t, "", "schema")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", doc["$schema"])
	assert.NotEmpty(t, doc["$defs"])
}

func TestSchemaAcceptsValidFixtures(t *testing.T) {
	dir := conformanceDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "valid", "*.*"))
	more, _ := filepath.Glob(filepath.Join(dir, "valid", "*", "flow.yaml"))
	files = append(files, more...)
	require.Len(t, files, 118)
	s := schemaFromCLI(t)
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.NoError(t, s.Validate(yamlAsJSON(t, data)), path)
	}
}

func TestSchemaRejectsGarbage(t *testing.T) {
	s := schemaFromCLI(t)
	for _, src := range []string{
		"name: F\nmethods: 5\n",
		"methods: {}\n",
		"name: F\nmethods:\n  a: {listen: [x], do: {call: expression, expr: '1'}}\n",
		"name: F\nmethods:\n  a: {do: {call: expression}}\n",
		"name: F\nstate: {type: dict, ref: x}\n",
	} {
		assert.Error(t, s.Validate(yamlAsJSON(t, []byte(src))), src)
	}
}
