package flow

import (
	"encoding/binary"
	"math/rand/v2"
)

// An IDSource makes the ids of runs not given one (an "id" input). A
// durable engine gives one whose ids are recorded or derived from its own
// workflow id, so that a replayed run gets the id it had; tests give
// [SeededIDs]. Implementations must be safe for concurrent use.
type IDSource interface {
	NewID() string
}

// WithIDSource makes runs take their ids from s. The default draws
// version 4 UUIDs from a generator seeded from crypto/rand, one per
// compiled definition.
func WithIDSource(s IDSource) Option { return func(e *Engine) { e.ids = s } }

// SeededIDs returns an [IDSource] of version 4 UUIDs drawn from a ChaCha8
// generator seeded with seed: two sources with one seed make the same ids
// in the same order.
func SeededIDs(seed uint64) IDSource {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	return &ids{gen: rand.NewChaCha8(s)}
}

// NewID returns a new id.
func (s *ids) NewID() string { return s.next() }
