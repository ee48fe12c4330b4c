package memory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/memory"
)

func TestFormatMatches(t *testing.T) {
	assert.Empty(t, memory.FormatMatches(nil))
	got := memory.FormatMatches([]memory.Match{
		{Record: memory.Record{Content: "Alice prefers tea.", Categories: []string{"preferences", "people"}}, Score: 0.8712},
		{Record: memory.Record{Content: "Line one\nline two"}, Score: 0.5},
	})
	assert.Equal(t, "Things you remember that may help (most relevant first):\n"+
		"- Alice prefers tea. [preferences, people; relevance 0.87]\n"+
		"- Line one\n  line two [relevance 0.50]\n", got)
}
