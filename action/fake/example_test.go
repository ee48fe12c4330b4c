package fake_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/troupe-dev/troupe/action/fake"
	"github.com/troupe-dev/troupe/llm"
)

func Example() {
	lookup := fake.NewTool(
		llm.ToolSpec{
			Name:        "lookup_order",
			Description: "Look up an order by its id.",
			Parameters: map[string]any{
				"type":       "object",
				"properties": map[string]any{"order_id": map[string]any{"type": "string"}},
				"required":   []any{"order_id"},
			},
		},
		fake.MatchArgs(map[string]any{"order_id": "A-1001"}, fake.Result(map[string]any{"status": "shipped"})),
		fake.Error("order service down"),
	)
	ctx := context.Background()
	for _, args := range []string{`{"order_id": "A-1001"}`, `{"order_id": "B-7"}`, `{}`} {
		res, err := lookup.Call(ctx, json.RawMessage(args))
		fmt.Println(res, err)
	}
	fmt.Printf("%d calls, the first with %s\n", len(lookup.Calls()), lookup.Calls()[0])
	// Output:
	// map[status:shipped] <nil>
	// <nil> order service down
	// <nil> action: tool "lookup_order": invalid arguments: 1 validation error: order_id: Field required
	// 3 calls, the first with {"order_id": "A-1001"}
}

func ExampleParseTools() {
	tools, err := fake.ParseTools([]byte(`
tools:
  - name: get_weather
    parameters:
      type: object
      properties: {city: {type: string}}
    replies:
      - match: "(?i)paris"
        result: {city: Paris, sky: sunny, celsius: 24}
      - result: "no forecast for that city"
`), "tools.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	weather := tools[0]
	for _, city := range []string{"paris", "Oslo"} {
		res, _ := weather.Call(context.Background(), json.RawMessage(`{"city": "`+city+`"}`))
		fmt.Println(res)
	}
	// Output:
	// map[celsius:24 city:Paris sky:sunny]
	// no forecast for that city
}
