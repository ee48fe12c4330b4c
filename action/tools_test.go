package action_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
)

type addIn struct {
	A     int64  `json:"a"`
	B     int64  `json:"b"`
	Label string `json:"label,omitempty"`
}

func addTool() action.Tool {
	return action.MustNewTool("add", "Adds two numbers", func(ctx context.Context, in addIn) (int64, error) { return in.A + in.B, nil })
}

func TestNewToolValidatesArguments(t *testing.T) {
	tool := addTool()
	spec := tool.Spec()
	assert.Equal(t, "add", spec.Name)
	assert.Equal(t, "object", spec.Parameters["type"])
	assert.ElementsMatch(t, []any{"a", "b"}, spec.Parameters["required"])

	tests := []struct {
		name, args string
		want       any
		argErr     bool
	}{
		{"valid", `{"a": 1, "b": 2}`, int64(3), false},
		{"lax coercion", `{"a": "1", "b": 2}`, int64(3), false},
		{"missing field", `{"a": 1}`, nil, true},
		{"wrong type", `{"a": [1], "b": 2}`, nil, true},
		{"not JSON", `{"a":`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tool.Call(t.Context(), json.RawMessage(tt.args))
			if tt.argErr {
				var ae *action.ArgumentError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, "add", ae.Tool)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestToolsRegistry(t *testing.T) {
	reg, err := action.NewTools(addTool(), searchTool(nil))
	require.NoError(t, err)
	assert.Equal(t, []string{"add", "search"}, reg.Names())
	tool, ok := reg.Get("search")
	require.True(t, ok)
	assert.Equal(t, "search", tool.Spec().Name)

	got, err := reg.Resolve("Researcher", []string{"search", "add"})
	require.NoError(t, err)
	assert.Len(t, got, 2)

	_, err = reg.Resolve("Researcher", []string{"search", "scrape"})
	var ue *action.UnknownToolError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, `action: agent "Researcher": unknown tool "scrape"`, err.Error())

	_, err = action.NewTools(addTool(), addTool())
	assert.ErrorContains(t, err, `tool "add" registered twice`)
}

func TestNewToolReportsSchemaProblemsWhenMade(t *testing.T) {
	type withChan struct {
		C chan int `json:"c"`
	}
	type cutDescription struct {
		ID string `json:"id" jsonschema:"description=The id, such as A-1"`
	}
	_, err := action.NewTool("bad", "Has a channel.", func(context.Context, withChan) (string, error) { return "", nil })
	assert.ErrorContains(t, err, `action: tool "bad"`)
	_, err = action.NewTool("cut", "Cut description.", func(context.Context, cutDescription) (string, error) { return "", nil })
	assert.ErrorContains(t, err, "jsonschema_description")
	_, err = action.NewTool[addIn, int64]("nil", "No function.", nil)
	assert.ErrorContains(t, err, "has no function")
	assert.Panics(t, func() {
		action.MustNewTool("bad", "Has a channel.", func(context.Context, withChan) (string, error) { return "", nil })
	})
}
