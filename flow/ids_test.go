package flow

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

var uuid4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestRunIDsAreRandomVersion4UUIDs(t *testing.T) {
	a, b := newIDs(), newIDs()
	seen := map[string]bool{}
	for range 1000 {
		for _, id := range []string{a.next(), b.next()} {
			assert.Regexp(t, uuid4, id)
			assert.False(t, seen[id], "id %s given twice", id)
			seen[id] = true
		}
	}
	// Consecutive ids share no more leading digits than random ones
	// would: the old counter-based ids differed by a fixed step.
	prev, same := a.next(), 0
	for range 200 {
		id := a.next()
		if id[:4] == prev[:4] {
			same++
		}
		prev = id
	}
	assert.Less(t, same, 5)
}

func TestFormatUUIDSetsVersionAndVariant(t *testing.T) {
	assert.Equal(t, "00000000-0000-4000-8000-000000000000", formatUUID(0, 0))
	assert.Equal(t, "ffffffff-ffff-4fff-bfff-ffffffffffff", formatUUID(^uint64(0), ^uint64(0)))
	assert.Equal(t, "01234567-89ab-4def-8123-456789abcdef", formatUUID(0x0123456789abcdef, 0x0123456789abcdef))
}
