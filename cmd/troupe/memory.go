package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/memory"
	memsqlite "github.com/troupe-dev/troupe/memory/sqlite"
)

// defaultMemory is where flows keep their memory, relative to the working
// folder, so what one run remembers the next one recalls.
const defaultMemory = ".troupe/memory.db"

// fileMemory is a memory kept in a SQLite file.
type fileMemory struct {
	*memory.Memory
	store *memsqlite.Store
}

func (m *fileMemory) Close() error { return m.store.Close() }

// openMemory opens the memory file when the definition asks for memory;
// flows without memory open nothing.
func openMemory(def *flow.Definition, path string) (*fileMemory, error) {
	if !def.UsesMemory() {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("opening the memory %s: %w", path, err)
	}
	store, err := memsqlite.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the memory %s: %w", path, err)
	}
	m, err := memory.New(store)
	if err != nil {
		store.Close()
		return nil, err
	}
	return &fileMemory{Memory: m, store: store}, nil
}
