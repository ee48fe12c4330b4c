package flow_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/troupe-dev/troupe/flow"
)

// FuzzParse checks that Parse never panics or hangs, and that it returns
// either a definition or Diagnostics holding at least one error.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: state.x}}\n",
		"name: F\nstate: {type: dict, default: {n: 1}}\nmethods:\n  a:\n    start: true\n    do:\n      call: each\n      in: state.items\n      do:\n        - name: s\n          if: item > 1\n          action: {call: tool, ref: 'a:b', with: {q: 'x ${item} y'}}\n",
		"name: F\nmethods:\n  r: {start: yes, router: true, emit: [a, b], do: {ref: 'm:f'}}\n  a: {listen: {or: [a, {and: [r, b]}]}, do: {call: agent, with: {input: '${outputs.r}'}}}\n",
		"{\"name\": \"F\", \"methods\": {\"c\": {\"start\": true, \"do\": {\"call\": \"crew\", \"with\": {\"agents\": [{\"name\": \"a\"}], \"tasks\": [{\"description\": \"d\", \"expected_output\": \"o\"}]}}}}}",
		"a: &a [x, *a]\n",
		"<<: {name: F}\nmethods: {<<: [{a: {start: 1, do: {}}}]}\n",
		"name: F\n---\nname: G\n",
		"name: [unclosed\n",
		"? [complex, key]\n: value\nname: F\n",
		"name: !!binary aGVsbG8=\nconfig: {max_method_calls: 1e400}\n",
		"name: F\nstate: {type: dict, default: {n: 99999999999999999999, m: &m -0x8000000000000000, k: *m}}\n",
		"name: F\nmethods:\n  a: {start: true, do: {call: crew, with: {agents: {r: {rol: x}}, tasks: [{description: d, expected_output: o, agnt: r}]}}}\n",
		"name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: \"int('x') + item.upper()\"}}\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// Seed with the conformance corpus when it is there.
	dir := os.Getenv("TROUPE_CONFORMANCE")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "conformance", "crewai")
	}
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		def, err := flow.Parse(data, "fuzz.yaml")
		if err == nil {
			if def == nil {
				t.Fatal("Parse returned neither a definition nor an error")
			}
			_ = flow.Validate(def)
			return
		}
		var ds flow.Diagnostics
		if !errors.As(err, &ds) || !ds.HasErrors() {
			t.Fatalf("Parse error is not Diagnostics with an error: %v", err)
		}
		if def != nil {
			t.Fatal("Parse returned a definition with an error")
		}
		// A partial definition must survive validation too.
		if part, _ := flow.Check(data, "fuzz.yaml"); part != nil {
			_ = flow.Validate(part)
		}
	})
}
