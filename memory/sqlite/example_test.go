package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/sqlite"
)

// Records written before a restart are recalled after it.
func Example() {
	dir, _ := os.MkdirTemp("", "memory")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.db")
	ctx := context.Background()

	store, err := sqlite.Open(path)
	if err != nil {
		panic(err)
	}
	mem, _ := memory.New(store)
	if _, err := mem.Remember(ctx, memory.Item{Content: "The staging database is called orca"}); err != nil {
		panic(err)
	}
	store.Close()

	store, err = sqlite.Open(path)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	mem, _ = memory.New(store)
	matches, _ := mem.Recall(ctx, memory.Query{Text: "staging database name"})
	fmt.Println(matches[0].Record.Content)
	// Output: The staging database is called orca
}
