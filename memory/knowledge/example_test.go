package knowledge_test

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/knowledge"
)

func Example() {
	ctx := context.Background()
	kb, err := knowledge.New(memory.LexicalEmbedder{})
	if err != nil {
		panic(err)
	}
	err = kb.Add(ctx,
		knowledge.Text("refunds.md", "Refunds are paid within 14 days of the return."),
		knowledge.Text("shipping.md", "Parcels to Norway take three days."),
	)
	if err != nil {
		panic(err)
	}
	results, err := kb.Search(ctx, "when are refunds paid?", 5, 0.2)
	if err != nil {
		panic(err)
	}
	fmt.Print(knowledge.Format(results))
	// Output:
	// Reference material that may help (from your knowledge sources):
	// [1] refunds.md
	// Refunds are paid within 14 days of the return.
}
