package yamlsyntax_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/internal/yamlsyntax"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		ok        bool
	}{
		{"parses", "a: 1\n", 0, 0, false},
		{"empty", "", 0, 0, false},
		{"mapping in a plain value", "a: b: c\n", 1, 5, true},
		{"on a later line", "name: F\nmethods:\n  m: x: y\n", 3, 7, true},
		{"unclosed flow sequence", "name: F\nx: [a, b\n", 2, 4, true},
		{"bad indentation", "name: F\nmethods:\n  a: 1\n b: 2\n", 4, 2, true},
		{"unterminated quote", "name: F\ndescription: \"abc\nmethods: {}\n", 2, 14, true},
		{"apostrophe in plain text", "a: it's\nb: [\n", 2, 4, true},
		{"runes, not bytes", "é: [ü, b\n", 1, 4, true},
		{"second document", "a: 1\n---\nb: 2\n", 2, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, col, ok := yamlsyntax.Locate([]byte(tt.src))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, [2]int{tt.line, tt.col}, [2]int{line, col})
		})
	}
}

func TestMessage(t *testing.T) {
	for in, want := range map[string]string{
		"yaml: line 3: did not find expected key": "did not find expected key",
		"yaml: unknown anchor 'x' referenced":     "unknown anchor 'x' referenced",
		"line 1: mapping values are not allowed":  "mapping values are not allowed",
	} {
		assert.Equal(t, want, yamlsyntax.Message(errors.New(in)))
	}
}

// FuzzLocate checks that no text makes Locate panic and that a place it
// gives lies within the text.
func FuzzLocate(f *testing.F) {
	for _, s := range []string{"a: b: c\n", "x: [a, {b: 'c\n", "\"\\", "# c\n[", "'it''s"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		line, col, ok := yamlsyntax.Locate(data)
		if !ok {
			return
		}
		if line < 1 || col < 1 || line > len(data)+1 || col > len(data)+1 {
			t.Fatalf("Locate(%q) = %d:%d", data, line, col)
		}
	})
}
