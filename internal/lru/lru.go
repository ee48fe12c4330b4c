// Package lru holds a small bounded cache, safe for concurrent use, that
// drops the least recently used entry when full. Troupe's caches of
// compiled expressions and programs use it so that a long-lived process
// that sees ever new definitions keeps a bounded amount of memory.
//
// It imports nothing of Troupe.
//
// It imports the standard library only; it must not import anything of
// Troupe.
package lru

import (
	"container/list"
	"sync"
)

// A Cache maps keys to values, holding at most its capacity of them. The
// zero Cache holds nothing; make one with New.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	order list.List // of *entry[K, V], most recently used first
	byKey map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key K
	val V
}

// New returns a cache that holds up to max entries; max <= 0 holds none.
func New[K comparable, V any](max int) *Cache[K, V] {
	return &Cache[K, V]{max: max, byKey: map[K]*list.Element{}}
}

// Get returns the value cached under key and marks it used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry[K, V]).val, true
}

// Add caches val under key unless a value is cached there already, and
// returns the cached value: val, or the one another caller added first.
// The least recently used entry goes when the cache is full.
func (c *Cache[K, V]) Add(key K, val V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max <= 0 {
		return val
	}
	if el, ok := c.byKey[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*entry[K, V]).val
	}
	if c.byKey == nil {
		c.byKey = map[K]*list.Element{}
	}
	c.byKey[key] = c.order.PushFront(&entry[K, V]{key, val})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*entry[K, V]).key)
	}
	return val
}

// Len returns the number of cached entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
