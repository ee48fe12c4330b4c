package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/sqlite"
)

// A run saved before a restart is loaded after it, its numbers unchanged.
func Example() {
	dir, _ := os.MkdirTemp("", "troupe")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, sqlite.DefaultPath)
	ctx := context.Background()

	st, err := sqlite.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = st.Save(ctx, &store.Snapshot{
		FlowID: "run-1", Flow: "Research", Status: store.StatusPaused, Method: "review",
		State: map[string]any{"topic": "agents", "count": 2, "score": 1.0},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	st.Close()

	st, err = sqlite.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	snap, err := st.Load(ctx, "run-1")
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
