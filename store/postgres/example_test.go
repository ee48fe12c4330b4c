package postgres_test

import (
	"context"
	"fmt"
	"os"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/store/postgres"
)

// Runs paused for human feedback, newest first, from a shared database.
func Example() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, os.Getenv("TROUPE_POSTGRES_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	paused, err := store.List(ctx, flow.Filter{Status: flow.StatusPaused, Limit: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range paused {
		fmt.Println(s.FlowID, s.Pending.Message)
	}
}
