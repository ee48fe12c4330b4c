package memory_test

import (
	"testing"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/memorytest"
)

func TestInMemoryStoreConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) memory.Store {
		s := memory.NewInMemoryStore()
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}
