package fake_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/troupe-dev/troupe/action/fake"
)

// FuzzParseTools checks that no script, however broken, makes ParseTools
// panic, and that the tools of a script it accepts answer without
// panicking either.
func FuzzParseTools(f *testing.F) {
	f.Add([]byte(script))
	f.Add([]byte("- name: t\n  replies: [{result: hi}]\n"))
	f.Add([]byte("tools: [{name: t, replies: [{match: '(', result: a}]}]"))
	f.Add([]byte("tools:\n  - name: t\n    replies: [{match: {a: [1, {b: *x}]}, result: 1}]\n"))
	f.Add([]byte("tools:\n  - name: 'it''s\n    parameters: {type: object, properties: {n: {type: integer}}}\n"))
	f.Add([]byte("a: &a [x, x]\nb: [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tools, err := fake.ParseTools(data, "fuzz.yaml")
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond) // scripts may ask for delays
		defer cancel()
		for _, tool := range tools {
			_, _ = tool.Call(ctx, json.RawMessage(`{"order_id": "A-1001", "n": 1}`))
		}
	})
}
