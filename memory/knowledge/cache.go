package knowledge

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// A Cache keeps embeddings by key (a SHA-256 of the embedder's ID and the
// chunk text, in hex), so a chunk is embedded once however often it is
// added. Implementations must be safe for concurrent use.
type Cache interface {
	// Get returns the vector stored under key, if any.
	Get(key string) ([]float32, bool)
	// Put stores vec under key.
	Put(key string, vec []float32) error
}

// MemoryCache is a Cache in process memory.
type MemoryCache struct {
	mu sync.RWMutex
	m  map[string][]float32
}

// NewMemoryCache returns an empty MemoryCache.
func NewMemoryCache() *MemoryCache { return &MemoryCache{m: make(map[string][]float32)} }

// Get implements Cache.
func (c *MemoryCache) Get(key string) ([]float32, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[key]
	return v, ok
}

// Put implements Cache.
func (c *MemoryCache) Put(key string, vec []float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = slices.Clone(vec)
	return nil
}

// Len reports the number of cached vectors.
func (c *MemoryCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// FileCache is a Cache in a directory that outlives the process: one file
// per key holding little-endian float32s. Unreadable files count as misses
// and are rewritten.
type FileCache struct{ dir string }

// NewFileCache returns a FileCache in dir, creating it when needed.
func NewFileCache(dir string) (*FileCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("knowledge: cache directory: %w", err)
	}
	return &FileCache{dir: dir}, nil
}

func (c *FileCache) path(key string) string {
	if len(key) > 2 {
		return filepath.Join(c.dir, key[:2], key)
	}
	return filepath.Join(c.dir, key)
}

// Get implements Cache.
func (c *FileCache) Get(key string) ([]float32, bool) {
	b, err := os.ReadFile(c.path(key))
	if err != nil || len(b) == 0 || len(b)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, true
}

// Put implements Cache, writing through a temporary file so readers never
// see half a vector.
func (c *FileCache) Put(key string, vec []float32) error {
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("knowledge: cache: %w", err)
	}
	b := make([]byte, 4*len(vec))
	for i, f := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("knowledge: cache: %w", err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("knowledge: cache: %w", cmpErr(werr, cerr))
	}
	return nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
