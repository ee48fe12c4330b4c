// Command bookstore-server is the MCP server of the mcp_agent example: a
// small bookshop catalogue served over stdio with the official Go SDK. It
// offers two read-only tools, searchBooks and checkStock.
//
//	go build -o bookstore-server ./server
package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A book of the catalogue.
type book struct {
	ISBN, Title, Author string
	Stock               int
}

var catalogue = []book{
	{"978-0134190440", "The Go Programming Language", "Alan Donovan and Brian Kernighan", 3},
	{"978-1492077213", "Learning Go", "Jon Bodner", 0},
	{"978-0262046305", "Structure and Interpretation of Computer Programs", "Abelson and Sussman", 1},
}

type searchIn struct {
	Query string `json:"query" jsonschema:"words to look for in titles and authors"`
}

type stockIn struct {
	ISBN string `json:"isbn" jsonschema:"the book's ISBN, as searchBooks gives it"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func searchBooks(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
	var lines []string
	for _, b := range catalogue {
		if strings.Contains(strings.ToLower(b.Title+" "+b.Author), strings.ToLower(in.Query)) {
			lines = append(lines, fmt.Sprintf("ISBN %s: %s, by %s", b.ISBN, b.Title, b.Author))
		}
	}
	if len(lines) == 0 {
		return text("No book matches " + in.Query + "."), nil, nil
	}
	return text(strings.Join(lines, "\n")), nil, nil
}

func checkStock(_ context.Context, _ *mcp.CallToolRequest, in stockIn) (*mcp.CallToolResult, any, error) {
	for _, b := range catalogue {
		if b.ISBN == in.ISBN {
			return text(fmt.Sprintf("%d copies of %s in stock.", b.Stock, b.Title)), nil, nil
		}
	}
	// A returned error reaches the agent as the tool's error result.
	return nil, nil, fmt.Errorf("no book has ISBN %s; search for it first", in.ISBN)
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "bookstore", Version: "1.0.0"}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "searchBooks", Description: "Find books whose title or author contains the query.", Annotations: readOnly}, searchBooks)
	mcp.AddTool(s, &mcp.Tool{Name: "checkStock", Description: "Say how many copies of a book are in stock.", Annotations: readOnly}, checkStock)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
