package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/troupe-dev/troupe/schema"
)

func ExampleCompileState() {
	s, err := schema.CompileState(map[string]any{
		"title": "CounterState",
		"type":  "object",
		"properties": map[string]any{
			"count": map[string]any{"type": "integer", "default": 0},
			"label": map[string]any{"type": "string", "default": "none"},
		},
	}, schema.WithPropertyOrder("count", "label"))
	if err != nil {
		panic(err)
	}

	// Kickoff inputs merge over the defaults; "5" becomes 5 as in pydantic.
	state := s.Defaults()
	state["count"] = "5"
	state, err = s.Conform(state)
	fmt.Println(state["count"], err)

	_, err = s.Conform(map[string]any{"count": "not-a-number"})
	fmt.Println("Invalid inputs for structured state:", err)

	var ve *schema.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Fields[0].Path, ve.Fields[0].Kind)
	}
	// Output:
	// 5 <nil>
	// Invalid inputs for structured state: 1 validation error for CounterState: count: Input should be a valid integer, unable to parse string as an integer
	// count int_parsing
}

func ExampleSchema_Closest() {
	s, err := schema.CompileState(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"prospect_email": map[string]any{"type": "string"},
		},
		"required": []string{"prospect_email"},
	})
	if err != nil {
		panic(err)
	}
	inputs := map[string]any{"prospect_emai": "a@b.com"}
	for _, k := range s.Unknown(inputs) {
		if near, ok := s.Closest(k); ok {
			fmt.Printf("Ignoring unknown input '%s'. Did you mean '%s'?\n", k, near)
		}
	}
	fmt.Println("missing:", s.Missing(inputs))
	// Output:
	// Ignoring unknown input 'prospect_emai'. Did you mean 'prospect_email'?
	// missing: [prospect_email]
}

func ExampleFor() {
	type args struct {
		Query string `json:"query" jsonschema:"description=What to search for"`
		Limit int    `json:"limit,omitempty"`
	}
	doc := schema.For[args]()
	text, _ := json.Marshal(doc)
	fmt.Println(string(text))

	s, _ := schema.Compile(doc)
	fmt.Println(schema.ValidateJSON(s, json.RawMessage(`{"limit":3}`)))
	// Output:
	// {"additionalProperties":false,"properties":{"limit":{"type":"integer"},"query":{"description":"What to search for","type":"string"}},"required":["query"],"type":"object"}
	// 1 validation error: query: Field required
}
