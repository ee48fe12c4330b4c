package lru_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/internal/lru"
)

func TestCacheDropsTheLeastRecentlyUsed(t *testing.T) {
	c := lru.New[string, int](2)
	c.Add("a", 1)
	c.Add("b", 2)
	_, _ = c.Get("a") // b is now the least recently used
	c.Add("c", 3)
	_, okB := c.Get("b")
	a, okA := c.Get("a")
	assert.False(t, okB)
	assert.True(t, okA)
	assert.Equal(t, 1, a)
	assert.Equal(t, 2, c.Len())
}

func TestCacheAddKeepsTheFirstValue(t *testing.T) {
	c := lru.New[string, int](4)
	assert.Equal(t, 1, c.Add("a", 1))
	assert.Equal(t, 1, c.Add("a", 2), "a second Add returns what is cached")
}

func TestCacheOfSizeZeroHoldsNothing(t *testing.T) {
	c := lru.New[string, int](0)
	assert.Equal(t, 7, c.Add("a", 7))
	_, ok := c.Get("a")
	assert.False(t, ok)
	var zero lru.Cache[string, int]
	zero.Add("a", 1)
	assert.Zero(t, zero.Len())
}

func TestCacheIsSafeForConcurrentUse(t *testing.T) {
	c := lru.New[int, int](8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				c.Add((g*i)%32, i)
				c.Get(i % 32)
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, c.Len(), 8)
}
