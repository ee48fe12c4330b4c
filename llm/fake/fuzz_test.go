package fake_test

import (
	"context"
	"testing"
	"time"

	"github.com/troupe-dev/troupe/llm/fake"
)

// FuzzParse checks that no script, however broken, makes Parse panic, and
// that a script it accepts answers without panicking either.
func FuzzParse(f *testing.F) {
	f.Add([]byte(script))
	f.Add([]byte("- text: hi\n"))
	f.Add([]byte("replies: [{match: '(', text: a}]"))
	f.Add([]byte("replies:\n  - tool_calls: [{name: f, arguments: [1, {a: *x}]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := fake.Parse(data)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond) // scripts may ask for delays
		defer cancel()
		_, _ = m.Generate(ctx, ask("Research AI"))
	})
}
