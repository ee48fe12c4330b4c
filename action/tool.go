package action

import (
	"context"
	"encoding/json"

	"github.com/troupe-dev/troupe/llm"
)

// A Tool is something an agent or a tool action can call.
type Tool interface {
	// Spec names the tool and describes its arguments as a JSON Schema.
	Spec() llm.ToolSpec
	// Call runs the tool with JSON arguments that match the schema.
	Call(ctx context.Context, args json.RawMessage) (any, error)
}
