package schema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expected values come from CPython's difflib.get_close_matches(word,
// candidates, n=1, cutoff=0.7) and SequenceMatcher(None, a, b).ratio().
func TestClosestMatchFollowsDifflib(t *testing.T) {
	tests := []struct {
		word       string
		candidates []string
		want       string
		found      bool
	}{
		{"prospect_emai", []string{"prospect_email", "lead_name"}, "prospect_email", true},
		{"topic", []string{"topics", "audience"}, "topics", true},
		{"cnt", []string{"count", "label"}, "count", true},
		{"abc", []string{"xyz"}, "", false},
		{"colour", []string{"color", "colors", "column"}, "color", true},
		{"aaab", []string{"aaba", "abaa"}, "aaba", true},
		{"", []string{"a"}, "", false},
		// A tie goes to the greater name, as heapq.nlargest does.
		{"lable", []string{"label", "table"}, "table", true},
		{"ab", []string{"ba", "ab_"}, "ab_", true},
		{"naïve", []string{"naive", "native"}, "naive", true},
		{"x", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got, found := ClosestMatch(tt.word, tt.candidates, 0.7)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSimilarityFollowsSequenceMatcher(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"abcd", "bcde", 0.75},
		{"private Thread currentThread;", "private volatile Thread currentThread;", 0.8656716417910447},
		{"qabxcd", "abycdf", 0.6666666666666666},
		{"", "", 1.0},
		{"prospect_email", "prospect_emai", 26.0 / 27.0},
		// autojunk: in b of 200+ runes, runes above 1% are popular and
		// seed no match.
		{strings.Repeat("a", 250) + "b", "b" + strings.Repeat("a", 250), 0.00398406374501992},
		{"xxx" + strings.Repeat("abc", 100), strings.Repeat("abc", 70) + "yyyyy", 0.0},
	}
	for _, tt := range tests {
		t.Run(tt.a, func(t *testing.T) {
			assert.InDelta(t, tt.want, Similarity(tt.a, tt.b), 1e-12)
		})
	}
}

func TestSchemaClosestUsesPropertyNames(t *testing.T) {
	s, err := CompileState(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"prospect_email": map[string]any{"type": "string"},
			"company":        map[string]any{"type": "string"},
		},
	})
	require.NoError(t, err)

	got, ok := s.Closest("prospect_emai")
	require.True(t, ok)
	assert.Equal(t, "prospect_email", got)

	_, ok = s.Closest("zzz")
	assert.False(t, ok)
}
