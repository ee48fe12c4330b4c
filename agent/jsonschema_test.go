package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/schema"
)

func TestJSONSchemaAcceptsValidFiles(t *testing.T) {
	out, err := JSONSchema()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(out, &doc))
	s, err := schema.Compile(doc)
	require.NoError(t, err)
	tests := []struct {
		file  string
		valid bool
	}{
		{"testdata/valid.yaml", true},
		{"testdata/derived.yaml", true},
		{"testdata/run_refund.yaml", true},
		{"../examples/after_sales/agent.yaml", true},
		{"../examples/after_sales/base.yaml", true},
		{"testdata/errors.yaml", false},
		{"testdata/derived_bad.yaml", false},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			data, err := os.ReadFile(tt.file)
			require.NoError(t, err)
			var v any
			require.NoError(t, yaml.Unmarshal(data, &v))
			err = s.Validate(v)
			if tt.valid {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}
