package postgres_test

import (
	"context"
	"fmt"
	"os"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/postgres"
)

// Runs paused for human feedback, newest first, from a shared database.
func Example() {
	ctx := context.Background()
	st, err := postgres.Open(ctx, os.Getenv("TROUPE_POSTGRES_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	paused, err := st.List(ctx, store.Filter{Status: store.StatusPaused, Limit: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range paused {
		fmt.Println(s.FlowID, s.Pending.Message)
	}
}
