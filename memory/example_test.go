package memory_test

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/memory"
)

// A flow's memory, offline: the lexical embedder, no model, nothing spent.
func Example() {
	ctx := context.Background()
	mem, err := memory.New(memory.NewInMemoryStore(), memory.WithRootScope(memory.FlowScope("Trip Planner")))
	if err != nil {
		panic(err)
	}
	for _, note := range []string{"Alice prefers window seats", "Alice's budget is 2000 EUR", "Bob is vegetarian"} {
		_, err := mem.Remember(ctx, memory.Item{
			Content:    note,
			Scope:      "/agent/booker",
			Categories: []string{"preferences"},
			Importance: memory.Importance(0.8),
		})
		if err != nil {
			panic(err)
		}
	}
	matches, err := mem.Recall(ctx, memory.Query{Text: "which seats does Alice like?", Limit: 2})
	if err != nil {
		panic(err)
	}
	for _, m := range matches {
		fmt.Printf("%s in %s\n", m.Record.Content, m.Record.Scope)
	}
	fmt.Printf("spent: %+v\n", mem.Usage())
	// Output:
	// Alice prefers window seats in /flow/trip-planner/agent/booker
	// Alice's budget is 2000 EUR in /flow/trip-planner/agent/booker
	// spent: {Model:{InputTokens:0 OutputTokens:0 Requests:0} Embedding:{InputTokens:0 OutputTokens:0 Requests:0}}
}

// A model files what the caller leaves out, in one call that is counted.
func ExampleWithModel() {
	ctx := context.Background()
	model := memory.ModelFunc(func(ctx context.Context, prompt string) (string, memory.Usage, error) {
		return `{"scope": "/customers/acme", "categories": ["contracts"], "importance": 0.9}`,
			memory.Usage{InputTokens: 210, OutputTokens: 24}, nil
	})
	mem, err := memory.New(memory.NewInMemoryStore(), memory.WithModel(model),
		memory.WithSpendObserver(func(s memory.Spend) { fmt.Printf("spent on %s: %+v\n", s.Kind, s.Usage) }))
	if err != nil {
		panic(err)
	}
	saved, err := mem.Remember(ctx, memory.Item{Content: "Acme's contract renews on 1 June"})
	if err != nil {
		panic(err)
	}
	fmt.Println(saved.Record.Scope, saved.Record.Categories, saved.Record.Importance)
	// Output:
	// spent on file: {InputTokens:210 OutputTokens:24 Requests:1}
	// /customers/acme [contracts] 0.9
}
