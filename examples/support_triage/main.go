// Command support_triage runs the support-triage flow with a Go tool: an
// agent looks orders up with lookup_order (a typed Go function registered
// with action.NewTool) while a scripted model (llm/fake) stands in for a
// real one, so the example runs offline:
//
//	go run ./examples/support_triage
//
// The flow and the scripted replies are embedded, so the program runs from
// any folder. tools.yaml scripts the same tool for the CLI, which cannot
// register Go code (see README.md).
package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

var (
	//go:embed flow.yaml
	flowYAML []byte
	//go:embed replies.yaml
	repliesYAML []byte
)

// orderQuery is what the agent passes to lookup_order; its JSON Schema is
// reflected from the struct.
type orderQuery struct {
	OrderID string `json:"order_id" jsonschema_description:"The order number, such as A-1001"`
}

// order is what lookup_order returns to the agent.
type order struct {
	OrderID string `json:"order_id"`
	Status  string `json:"status"`
	Charges int    `json:"charges"`
}

// orders is the shop's order book.
var orders = map[string]order{
	"A-1001": {OrderID: "A-1001", Status: "held at customs", Charges: 1},
	"A-1002": {OrderID: "A-1002", Status: "delivered", Charges: 2},
	"A-1003": {OrderID: "A-1003", Status: "delivered", Charges: 1},
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "support_triage:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var lookups atomic.Int64
	lookup, err := action.NewTool("lookup_order", "Look up an order's delivery status and how many times it was charged.",
		func(_ context.Context, q orderQuery) (order, error) {
			lookups.Add(1)
			o, ok := orders[q.OrderID]
			if !ok {
				// The agent sees this error as the tool's result and can recover.
				return order{}, fmt.Errorf("no order %q", q.OrderID)
			}
			return o, nil
		})
	if err != nil {
		return err
	}

	def, err := flow.Parse(flowYAML, "flow.yaml")
	if err != nil {
		return err
	}
	model, err := fake.Parse(repliesYAML)
	if err != nil {
		return err
	}
	// With a real model, replace WithLLM(model) by one from llm/openai or
	// llm/anthropic; nothing else changes.
	eng := flow.NewEngine(flow.WithLLM(model), flow.WithTools(lookup))
	res, err := eng.Run(ctx, def, nil)
	if err != nil {
		return err
	}

	tickets, _ := res.Outputs["triage"].([]any)
	for _, t := range tickets {
		t, _ := t.(map[string]any)
		fmt.Printf("ticket %v: %v (urgent: %v) - %v\n", t["id"], t["category"], t["urgent"], t["reply"])
	}
	fmt.Printf("lookup_order calls: %d\n", lookups.Load())
	fmt.Printf("model calls: %d, tokens: %d\n", res.Usage.Requests, res.Usage.Total())
	fmt.Println(res.Output)
	return nil
}
