package knowledge_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory/knowledge"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		name          string
		text          string
		size, overlap int
		want          []string
	}{
		{"windows with overlap", "abcdefghij", 4, 1, []string{"abcd", "defg", "ghij"}},
		{"last window ends with the text", "abcdefghijk", 4, 1, []string{"abcd", "defg", "ghij", "jk"}},
		{"no overlap", "abcdef", 3, 0, []string{"abc", "def"}},
		{"shorter than a window", "abc", 10, 2, []string{"abc"}},
		{"runes, not bytes", "héllo wörld", 4, 2, []string{"héll", "llo ", "o wö", "wörl", "rld"}},
		{"multi-byte only", "ééééé", 2, 0, []string{"éé", "éé", "é"}},
		{"blank windows dropped", "ab    cd", 2, 0, []string{"ab", "cd"}},
		{"empty", "", 4, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := knowledge.Split(c.text, c.size, c.overlap)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestSplitDefaults(t *testing.T) {
	text := strings.Repeat("0123456789", 999) + "ü" // 9991 runes
	got, err := knowledge.Split(text, knowledge.DefaultChunkSize, knowledge.DefaultChunkOverlap)
	require.NoError(t, err)
	require.Len(t, got, 3) // windows start at 0, 3800 and 7600
	assert.Equal(t, 4000, utf8.RuneCountInString(got[0]))
	assert.Equal(t, 4000, utf8.RuneCountInString(got[1]))
	assert.Equal(t, 2391, utf8.RuneCountInString(got[2]))
	assert.Equal(t, got[0][3800:], got[1][:200], "consecutive windows share 200 characters")
	assert.True(t, strings.HasSuffix(got[2], "9ü"))
}

func TestSplitRejectsBadSizes(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {-1, 0}, {10, 10}, {10, -1}} {
		_, err := knowledge.Split("x", c[0], c[1])
		assert.Error(t, err, "%v", c)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("héllo wörld, ünïcode", 4, 1)
	f.Add("\xff\xfe broken utf-8", 3, 0)
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		size, overlap = 1+abs(size)%64, abs(overlap)%64
		if overlap >= size {
			overlap = size - 1
		}
		chunks, err := knowledge.Split(text, size, overlap)
		require.NoError(t, err)
		for _, c := range chunks {
			require.LessOrEqual(t, utf8.RuneCountInString(c), size)
			require.True(t, strings.Contains(text, c))
			if utf8.ValidString(text) {
				require.True(t, utf8.ValidString(c))
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}
