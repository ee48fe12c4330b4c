package client

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultText is what the model sees of a tool result: every text item,
// joined by newlines, with the other items summarised (an image as
// "[image: image/png, 1024 bytes]", a resource link as "[resource: URI]",
// an embedded resource as its URI and its text). Without any text item,
// the structured content as JSON comes first.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch x := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, x.Text)
			hasText = true
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", x.MIMEType, len(x.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", x.MIMEType, len(x.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource: %s]", x.URI))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(x.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[%T]", c))
		}
	}
	if !hasText && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append([]string{string(b)}, parts...)
		}
	}
	return strings.Join(parts, "\n")
}

// embedded summarises an embedded resource: its URI, then its text, or the
// size of its binary content.
func embedded(r *sdk.ResourceContents) string {
	if r == nil {
		return "[resource]"
	}
	switch {
	case r.Text != "":
		return fmt.Sprintf("[resource: %s]\n%s", r.URI, r.Text)
	case r.Blob != nil:
		return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
	}
	return fmt.Sprintf("[resource: %s]", r.URI)
}
