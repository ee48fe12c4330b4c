package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/store/sqlite"
)

// A run saved before a restart is loaded after it, its numbers unchanged.
func Example() {
	dir, _ := os.MkdirTemp("", "troupe")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, sqlite.DefaultPath)
	ctx := context.Background()

	store, err := sqlite.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = store.Save(ctx, &flow.Snapshot{
		FlowID: "run-1", Flow: "Research", Status: flow.StatusPaused, Method: "review",
		State: map[string]any{"topic": "agents", "count": 2, "score": 1.0},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	store.Close()

	store, err = sqlite.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	snap, err := store.Load(ctx, "run-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(snap.Status, snap.Method)
	fmt.Printf("%T %T\n", snap.State["count"], snap.State["score"])
	// Output:
	// paused review
	// int64 float64
}
